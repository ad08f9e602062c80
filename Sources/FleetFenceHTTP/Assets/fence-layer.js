// Every fence with its effective shape, as the service judges it (docs/http.md "The map"): circles
// with their effective radius (dashed when clamped), polygons with their holes, MultiPolygons,
// and corridors as their buffer, a line as wide as twice `buffer_m` at the current zoom. Name
// and id on hover. Fences are few and change rarely: SVG, one path per fence, each carrying
// `data-fence` with its id.
(function (FleetFence) {
  "use strict";

  const STYLE = { color: "#5f3dc4", weight: 2, opacity: 0.9, fillColor: "#7048e8", fillOpacity: 0.12 };
  const EQUATOR_M = 40075016.686;

  // One form for a fence, whichever way it came: a GeoJSON Feature (`/api/fences`) or the
  // definition's own keys (`event: fence`, as retained on `<prefix>/fences/<id>`).
  function normalise(input) {
    if (!input || typeof input !== "object") return null;
    if (input.type === "Feature") {
      const p = input.properties || {};
      return {
        id: String(p.id != null ? p.id : input.id), name: p.name, geometry: input.geometry, radius: p.radius,
        buffer: p.buffer_m, clamped: p.clamped === true, requested: p.requested_radius,
      };
    }
    let geometry = input.geometry;
    if (!geometry && Array.isArray(input.polygon)) {
      // An outer ring of [lon, lat], or rings (outer first, then holes).
      const rings = Array.isArray(input.polygon[0] && input.polygon[0][0]) ? input.polygon : [input.polygon];
      geometry = { type: "Polygon", coordinates: rings };
    }
    if (!geometry && typeof input.lat === "number" && typeof input.lon === "number") {
      geometry = { type: "Point", coordinates: [input.lon, input.lat] };
    }
    return {
      id: String(input.id), name: input.name, geometry, radius: input.radius, buffer: input.buffer_m,
      clamped: input.clamped === true, requested: input.requested_radius,
    };
  }

  // Metres per CSS pixel at `latitude` and `zoom` in Web Mercator.
  function metresPerPixel(latitude, zoom) {
    return (EQUATOR_M * Math.abs(Math.cos((latitude * Math.PI) / 180))) / Math.pow(2, zoom + 8);
  }

  function metres(value) {
    return value >= 10000 ? (value / 1000).toFixed(1) + " km" : Math.round(value) + " m";
  }

  // The tooltip: name, id and what the shape is, as text (names are never read as HTML).
  function describe(fence, kind) {
    const box = document.createElement("div");
    const title = document.createElement("strong");
    title.textContent = fence.name || fence.id;
    box.appendChild(title);
    const id = document.createElement("div");
    id.textContent = "id: " + fence.id;
    box.appendChild(id);
    const detail = document.createElement("div");
    detail.className = "ff-detail";
    if (kind === "circle") {
      detail.textContent = "circle, radius " + metres(fence.radius) +
        (fence.clamped && fence.requested != null ? " (clamped from " + metres(fence.requested) + ")" : "");
    } else if (kind === "corridor") {
      detail.textContent = "corridor, " + metres(fence.buffer) + " either side";
    } else {
      detail.textContent = kind;
    }
    box.appendChild(detail);
    return box;
  }

  // The Leaflet layers of a fence: `main` is the path that stands for it (hover, data-fence).
  function draw(fence) {
    const geometry = fence.geometry;
    if (!geometry || !Array.isArray(geometry.coordinates)) return null;
    const c = geometry.coordinates;
    switch (geometry.type) {
      case "Point": {
        if (!(fence.radius > 0)) return null;
        const style = Object.assign({}, STYLE, { radius: fence.radius, dashArray: fence.clamped ? "6 5" : null });
        const main = L.circle([c[1], c[0]], style);
        return { kind: "circle", main, layer: main };
      }
      case "Polygon":
      case "MultiPolygon": {
        const depth = geometry.type === "Polygon" ? 1 : 2;
        const main = L.polygon(L.GeoJSON.coordsToLatLngs(c, depth), STYLE);
        return { kind: geometry.type === "Polygon" ? "polygon" : "multipolygon", main, layer: main };
      }
      case "LineString":
      case "MultiLineString": {
        if (!(fence.buffer > 0)) return null;
        const latLngs = L.GeoJSON.coordsToLatLngs(c, geometry.type === "LineString" ? 0 : 1);
        // Round caps and joins: a stroke of width 2b is every point within b of the line.
        const main = L.polyline(latLngs, {
          color: STYLE.fillColor, opacity: 0.28, lineCap: "round", lineJoin: "round", weight: 2,
        });
        const centre = L.polyline(latLngs, { color: STYLE.color, weight: 1.5, dashArray: "4 4", interactive: false });
        return { kind: "corridor", main, layer: L.featureGroup([main, centre]), corridor: true };
      }
      default:
        return null;
    }
  }

  class FenceLayer {
    constructor(map) {
      this.map = map;
      this.fences = new Map();
      map.on("zoomend", this.resizeCorridors, this);
    }

    get count() {
      return this.fences.size;
    }

    // The fence's name, or its id when it has none or is unknown.
    name(id) {
      const held = this.fences.get(id);
      return (held && held.fence.name) || id;
    }

    // Draws a fence (replacing one with the same id).
    set(input) {
      const fence = normalise(input);
      if (!fence || fence.id === "undefined") return;
      this.remove(fence.id);
      const drawn = draw(fence);
      if (!drawn) {
        console.warn("FleetFence: fence " + fence.id + " has a shape the map cannot draw", input);
        return;
      }
      const held = { fence, drawn };
      if (drawn.corridor) this.resizeCorridor(held);
      drawn.main.bindTooltip(describe(fence, drawn.kind), { sticky: true, className: "ff-fence-tip" });
      drawn.layer.addTo(this.map);
      const element = drawn.main.getElement();
      if (element) {
        element.setAttribute("data-fence", fence.id);
        element.setAttribute("data-shape", drawn.kind);
      }
      this.fences.set(fence.id, held);
    }

    remove(id) {
      const held = this.fences.get(id);
      if (!held) return;
      held.drawn.layer.remove();
      this.fences.delete(id);
    }

    // After a (re)connection: exactly these fences.
    replaceAll(features) {
      const seen = new Set();
      for (const feature of features) {
        this.set(feature);
        const fence = normalise(feature);
        if (fence) seen.add(fence.id);
      }
      for (const id of Array.from(this.fences.keys())) {
        if (!seen.has(id)) this.remove(id);
      }
    }

    bounds() {
      const bounds = L.latLngBounds([]);
      for (const held of this.fences.values()) bounds.extend(held.drawn.layer.getBounds());
      return bounds;
    }

    resizeCorridors() {
      for (const held of this.fences.values()) {
        if (held.drawn.corridor) this.resizeCorridor(held);
      }
    }

    // A stroke's width is in pixels: it follows the zoom, at the corridor's middle latitude.
    resizeCorridor(held) {
      const zoom = this.map.getZoom();
      if (zoom == null) return;
      const latitude = held.drawn.main.getBounds().getCenter().lat;
      const weight = Math.max(2, (2 * held.fence.buffer) / metresPerPixel(latitude, zoom));
      held.drawn.main.setStyle({ weight });
    }
  }

  FleetFence.FenceLayer = FenceLayer;
})(window.FleetFence);
