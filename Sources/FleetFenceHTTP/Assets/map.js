// The live map (docs/http.md "The map"): fences as held, devices at their latest positions, the
// latest alerts; seeded from the API, then kept current from /api/stream without a reload.
(function (FleetFence) {
  "use strict";

  const config = FleetFence.config;
  // Half zoom steps: the fences fill the view when it fits them.
  const map = L.map("map", { minZoom: 2, maxZoom: 20, zoomSnap: 0.5 }).setView([20, 0], 2);
  // The tiles join once the view fits the data (see `seed`): none are fetched for the world
  // view the page starts with.
  const tiles = config.tilesURL ? L.tileLayer(config.tilesURL, { maxZoom: 19 }) : null;
  if (!tiles) {
    // No base tiles (`http.tiles_url` unset): a plain background and a graticule.
    document.body.classList.add("ff-offline");
    new FleetFence.Graticule().addTo(map);
  }
  L.control.scale({ imperial: false, maxWidth: 200 }).addTo(map);

  const loop = new FleetFence.FrameLoop(8);
  const status = new FleetFence.StatusLine(document.getElementById("status"));
  const fences = new FleetFence.FenceLayer(map);
  const devices = new FleetFence.DeviceLayer(map, loop, document.getElementById("drawn-devices"), (id) => fences.name(id));
  const alerts = new FleetFence.AlertList(document.getElementById("alerts"), (id) => fences.name(id));
  let loading = false;
  let seeded = false;
  let fitted = false;

  const stream = new FleetFence.LiveStream("/api/stream", {
    alert: (alert) => alerts.add(alert, true),
    state: (state) => devices.update(state),
    fence: (fence) => (fence.deleted ? fences.remove(fence.id) : fences.set(fence)),
  }, loop, seed);

  loop.add((deadline) => stream.process(deadline));
  loop.add((deadline) => devices.flush(deadline));
  loop.add(() => alerts.flush());
  loop.add(() => {
    status.show(loading ? "loading" : stream.state, devices.count, devices.shown.size, fences.count);
    return false;
  });
  devices.reconcile();

  async function json(url) {
    const response = await fetch(url, { headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(url + " answered " + response.status);
    return response.json();
  }

  async function allDevices() {
    let states = [];
    let after = null;
    do {
      const page = await json("/api/devices?limit=10000" + (after ? "&after=" + encodeURIComponent(after) : ""));
      states = states.concat(page.devices);
      after = page.next;
    } while (after);
    return states;
  }

  // The newest alerts. The history is ordered oldest first and paged forwards, so ask for a
  // window short enough to fit one page: the last hour, else 5 minutes, else 30 seconds
  // followed over a few pages.
  async function recentAlerts() {
    const now = Date.now() / 1000;
    for (const seconds of [3600, 300, 30]) {
      let page = await json("/api/events?limit=1000&since=" + (now - seconds).toFixed(3));
      if (page.next === null) return page.events;
      if (seconds === 30) {
        let events = page.events;
        for (let pages = 0; pages < 10 && page.next !== null; pages++) {
          page = await json("/api/events?limit=1000&since=" + (now - seconds).toFixed(3) + "&after=" +
            encodeURIComponent(page.next));
          events = events.concat(page.events).slice(-1000);
        }
        return events;
      }
    }
    return [];
  }

  // At load and after each reconnection: everything as it is now, the stream held meanwhile.
  async function seed() {
    seeded = true;
    loading = true;
    stream.hold();
    try {
      const [collection, states, events] = await Promise.all([json("/api/fences"), allDevices(), recentAlerts()]);
      fences.replaceAll(collection.features || []);
      devices.replaceAll(states);
      for (const alert of events) alerts.add(alert, false);
      if (!fitted) fit();
    } catch (error) {
      console.error("FleetFence: the map's data could not be loaded", error);
    } finally {
      loading = false;
      stream.release();
      if (tiles && !map.hasLayer(tiles)) tiles.addTo(map);
    }
  }

  // The view at load: the fences, or else the devices.
  function fit() {
    const bounds = fences.count > 0 ? fences.bounds() : devices.bounds();
    if (bounds.isValid()) {
      map.fitBounds(bounds, { padding: [40, 40], maxZoom: 16, animate: false });
      fitted = true;
    }
    devices.reconcile();
  }

  // A stream that cannot open (the service's stream slots all taken) still gets a map.
  setTimeout(() => {
    if (!seeded) seed();
  }, 3000);

  FleetFence.app = { map, fences, devices, alerts, stream, loop };
})(window.FleetFence);
