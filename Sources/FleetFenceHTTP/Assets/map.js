// The live map: fences as held, devices at their latest positions, the latest alerts, kept
// current over /api/stream (README, "The map").
(function () {
  "use strict";
  const map = L.map("map", { preferCanvas: true }).setView([49.29, 8.64], 13);
  if (window.FLEETFENCE.tilesURL) L.tileLayer(window.FLEETFENCE.tilesURL, { maxZoom: 19 }).addTo(map);
  L.control.scale().addTo(map);
  const fenceLayers = new Map();
  const deviceMarkers = new Map();
  function drawFence(feature) {
    const old = fenceLayers.get(feature.id);
    if (old) map.removeLayer(old);
    const p = feature.properties;
    const layer = feature.geometry.type === "Point"
      ? L.circle([feature.geometry.coordinates[1], feature.geometry.coordinates[0]], { radius: p.radius })
      : L.geoJSON(feature);
    layer.bindTooltip((p.name || p.id) + " (" + p.id + ")");
    layer.addTo(map);
    fenceLayers.set(feature.id, layer);
  }
  function drawDevice(state) {
    const lat = state.last_lat ?? state.lat, lon = state.last_lon ?? state.lon;
    if (lat == null || lon == null) return;
    let marker = deviceMarkers.get(state.device);
    const colour = state.inside && state.inside.length ? "#c0392b" : "#2c3e50";
    if (!marker) {
      marker = L.circleMarker([lat, lon], { radius: 5 }).bindTooltip(state.device).addTo(map);
      deviceMarkers.set(state.device, marker);
    }
    marker.setLatLng([lat, lon]);
    marker.setStyle({ color: colour });
  }
  function addAlert(alert) {
    const item = document.createElement("li");
    item.textContent = alert.at + " " + alert.device + " " + alert.event + " " + alert.fence;
    const list = document.getElementById("alerts");
    list.insertBefore(item, list.firstChild);
    while (list.children.length > 100) list.removeChild(list.lastChild);
  }
  fetch("/api/fences").then(r => r.json()).then(c => {
    c.features.forEach(drawFence);
    const group = L.featureGroup([...fenceLayers.values()]);
    if (group.getLayers().length) map.fitBounds(group.getBounds());
  });
  fetch("/api/devices").then(r => r.json()).then(d => d.devices.forEach(drawDevice));
  fetch("/api/events?limit=100").then(r => r.json()).then(e => e.events.forEach(addAlert));
  const stream = new EventSource("/api/stream");
  stream.onopen = () => { document.getElementById("status").textContent = "live"; };
  stream.addEventListener("alert", e => addAlert(JSON.parse(e.data)));
  stream.addEventListener("state", e => drawDevice(JSON.parse(e.data)));
  stream.addEventListener("fence", e => {
    const fence = JSON.parse(e.data);
    if (fence.deleted) { const l = fenceLayers.get(fence.id); if (l) map.removeLayer(l); fenceLayers.delete(fence.id); }
    else fetch("/api/fences/" + encodeURIComponent(fence.id)).then(r => r.ok ? r.json() : null).then(f => f && drawFence(f));
  });
})();
