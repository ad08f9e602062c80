// Every device at its latest position, coloured by whether it is inside any fence, with a short
// trail (docs/http.md "The map"). Built to follow 10,000 devices: an update only changes a record and
// marks it; once per frame the marked devices are sorted into in view or not, and if anything in
// view changed the canvas is drawn again, once, and less often the more markers it holds. A
// device out of view is not touched until the view reaches it.
(function (FleetFence) {
  "use strict";

  const TRAIL_LENGTH = 10;
  // Trails are drawn while at most this many devices are in view: beyond, they are a blur.
  const TRAIL_LIMIT = 2000;
  // Markers are smaller when more than this many are in view, so that a crowd stays legible.
  const CROWD = 2000;
  const COLOURS = { inside: "#d9480f", outside: "#1864ab" };
  // How near the pointer must be to a marker for its tooltip, in CSS pixels.
  const HOVER_PX = 8;
  // Milliseconds between redraws, at least and per marker in view: devices move about once a
  // second, so a few hundred markers are redrawn 20 times a second, 10,000 five times. A moved
  // view is redrawn at once.
  const REDRAW_MS = 50;
  const REDRAW_MS_PER_MARKER = 0.02;

  class DeviceLayer {
    // `drawnList`: the hidden list with one entry per marker drawn; `fenceName(id)` names a fence.
    constructor(map, loop, drawnList, fenceName) {
      this.map = map;
      this.loop = loop;
      this.drawnList = drawnList;
      this.fenceName = fenceName;
      // The markers let the pointer through to the fences under them; hovering a device is
      // found here instead (see `hover`).
      map.createPane("ff-devices").style.pointerEvents = "none";
      map.getPane("ff-devices").style.zIndex = 450;
      this.canvas = new FleetFence.DeviceCanvas({ pane: "ff-devices" }).addTo(map);
      this.devices = new Map();
      this.dirty = new Set();
      this.shown = new Set();
      this.view = null;
      this.trails = true;
      this.stale = true;
      this.moved = true;
      this.drawnAt = 0;
      this.pointer = null;
      this.hovered = null;
      this.tooltip = L.tooltip({ direction: "top", offset: [0, -6], className: "ff-device-tip" });
      map.on("moveend", this.reconcile, this);
      map.on("mousemove", (event) => {
        this.pointer = event.containerPoint;
        this.loop.request();
      });
      map.on("mouseout", () => {
        this.pointer = null;
        this.loop.request();
      });
    }

    get count() {
      return this.devices.size;
    }

    // A device's state: a device of `/api/devices` (`last_lat`, `last_lon`, `last_seen`) or a
    // stream `state` event (`lat`, `lon`, `at`). An update older than what is shown is ignored:
    // times are RFC 3339 UTC with milliseconds, which compare as strings.
    update(state) {
      const id = state.device;
      if (typeof id !== "string") return;
      const lat = state.last_lat != null ? state.last_lat : state.lat;
      const lon = state.last_lon != null ? state.last_lon : state.lon;
      const at = state.last_seen || state.at || "";
      let device = this.devices.get(id);
      if (!device) {
        device = { id, lat: null, lon: null, at: "", inside: [], trail: [], entry: null, projected: -1, x: 0, y: 0 };
        this.devices.set(id, device);
      } else if (at && device.at && at < device.at) {
        return;
      }
      device.at = at || device.at;
      device.inside = Array.isArray(state.inside) ? state.inside : [];
      if (typeof lat === "number" && typeof lon === "number" && (lat !== device.lat || lon !== device.lon)) {
        device.lat = lat;
        device.lon = lon;
        device.projected = -1;
        device.trail.push([lat, lon]);
        if (device.trail.length > TRAIL_LENGTH) device.trail.shift();
      }
      this.dirty.add(device);
      this.loop.request();
    }

    // After a (re)connection: exactly these devices.
    replaceAll(states) {
      const seen = new Set();
      for (const state of states) {
        this.update(state);
        seen.add(state.device);
      }
      for (const device of Array.from(this.devices.values())) {
        if (!seen.has(device.id)) {
          this.hide(device);
          this.dirty.delete(device);
          this.devices.delete(device.id);
          this.stale = true;
        }
      }
    }

    // Devices with a position: for fitting the view when there is no fence.
    bounds() {
      const bounds = L.latLngBounds([]);
      for (const device of this.devices.values()) {
        if (device.lat !== null) bounds.extend([device.lat, device.lon]);
      }
      return bounds;
    }

    // The view moved: the canvas covers it again, devices come into view or leave it, and
    // trails are drawn or not by how many are in view.
    reconcile() {
      this.canvas.reset();
      const bounds = this.map.getBounds().pad(0.1);
      this.view = { south: bounds.getSouth(), west: bounds.getWest(), north: bounds.getNorth(), east: bounds.getEast() };
      let inView = 0;
      for (const device of this.devices.values()) {
        const visible = this.visible(device);
        if (visible) inView++;
        if (visible !== (device.entry !== null)) this.dirty.add(device);
      }
      this.trails = inView <= TRAIL_LIMIT;
      this.stale = true;
      this.moved = true;
      this.loop.request();
    }

    visible(device) {
      const view = this.view;
      return device.lat !== null && view !== null && device.lat >= view.south && device.lat <= view.north &&
        device.lon >= view.west && device.lon <= view.east;
    }

    // The frame's work: marked devices sorted into in view or not until `deadline`, then one
    // drawing if anything in view changed and the last one is old enough; the hovered device's
    // tooltip. True while work is left.
    flush(deadline) {
      if (this.view === null) return false;
      let done = 0;
      for (const device of this.dirty) {
        this.dirty.delete(device);
        if (this.visible(device)) {
          this.show(device);
          this.stale = true;
        } else if (device.entry !== null) {
          this.hide(device);
          this.stale = true;
        }
        if ((++done & 255) === 0 && performance.now() > deadline) break;
      }
      const now = performance.now();
      if (this.stale && (this.moved || now - this.drawnAt >= Math.max(REDRAW_MS, this.shown.size * REDRAW_MS_PER_MARKER))) {
        this.canvas.draw(this.shown, this.trails, COLOURS, this.shown.size > CROWD ? 3 : 5);
        this.drawnAt = now;
        this.stale = false;
        this.moved = false;
      }
      this.hover();
      return this.dirty.size > 0 || this.stale;
    }

    show(device) {
      if (device.entry === null) {
        device.entry = document.createElement("li");
        device.entry.setAttribute("data-device", device.id);
        device.entry.textContent = device.id;
        this.drawnList.appendChild(device.entry);
        this.shown.add(device);
      }
      const inside = device.inside.length > 0 ? "true" : "false";
      if (device.entry.getAttribute("data-inside") !== inside) device.entry.setAttribute("data-inside", inside);
    }

    hide(device) {
      if (device.entry) device.entry.remove();
      device.entry = null;
      this.shown.delete(device);
      if (this.hovered === device) this.hovered = null;
    }

    // The device nearest the pointer, within HOVER_PX, gets the tooltip: a box test in degrees
    // first, so that thousands of markers cost a few comparisons each.
    hover() {
      let nearest = null;
      if (this.pointer) {
        const p = this.pointer;
        const corner1 = this.map.containerPointToLatLng([p.x - HOVER_PX, p.y + HOVER_PX]);
        const corner2 = this.map.containerPointToLatLng([p.x + HOVER_PX, p.y - HOVER_PX]);
        let best = Infinity;
        for (const device of this.shown) {
          if (device.lat < corner1.lat || device.lat > corner2.lat || device.lon < corner1.lng || device.lon > corner2.lng) {
            continue;
          }
          const distance = this.map.latLngToContainerPoint([device.lat, device.lon]).distanceTo(p);
          if (distance <= HOVER_PX && distance < best) {
            best = distance;
            nearest = device;
          }
        }
      }
      if (nearest === null) {
        if (this.hovered) this.map.closeTooltip(this.tooltip);
        this.hovered = null;
        return;
      }
      if (nearest !== this.hovered || nearest.at !== this.hoveredAt) {
        this.tooltip.setLatLng([nearest.lat, nearest.lon]).setContent(this.describe(nearest));
        this.hoveredAt = nearest.at;
      }
      if (this.hovered === null) this.map.openTooltip(this.tooltip);
      this.hovered = nearest;
    }

    describe(device) {
      const box = document.createElement("div");
      const title = document.createElement("strong");
      title.textContent = device.id;
      box.appendChild(title);
      const where = document.createElement("div");
      where.textContent = device.inside.length > 0
        ? "inside " + device.inside.map((id) => this.fenceName(id)).join(", ")
        : "outside every fence";
      box.appendChild(where);
      if (device.at) {
        const seen = document.createElement("div");
        seen.className = "ff-detail";
        seen.textContent = "seen " + device.at;
        box.appendChild(seen);
      }
      return box;
    }
  }

  FleetFence.DeviceLayer = DeviceLayer;
})(window.FleetFence);
