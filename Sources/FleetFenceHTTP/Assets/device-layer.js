// Every device at its latest position, coloured by whether it is inside any fence, with a short
// trail (README, "The map"). Built to follow 10,000 devices: updates only change a record and
// mark it; once per frame, in the frame's budget, the marked devices in view are drawn on a
// canvas. A device out of view has no marker and is not touched until the view reaches it.
(function (FleetFence) {
  "use strict";

  const TRAIL_LENGTH = 10;
  // Trails are drawn while at most this many devices are in view: beyond, they are a blur
  // that costs every frame.
  const TRAIL_LIMIT = 2000;
  const INSIDE = "#d9480f";
  const OUTSIDE = "#1864ab";
  // How near the pointer must be to a marker for its tooltip, in CSS pixels.
  const HOVER_PX = 8;

  class DeviceLayer {
    // `drawnList`: the hidden list with one entry per marker drawn; `fenceName(id)` names a fence.
    constructor(map, loop, drawnList, fenceName) {
      this.map = map;
      this.loop = loop;
      this.drawnList = drawnList;
      this.fenceName = fenceName;
      map.createPane("ff-trails").style.zIndex = 440;
      const pane = map.createPane("ff-devices");
      pane.style.zIndex = 450;
      // The markers' canvas lets the pointer through to the fences under it; hovering a device
      // is found here instead (see `hover`).
      pane.style.pointerEvents = "none";
      this.markerRenderer = L.canvas({ pane: "ff-devices", padding: 0.1 });
      this.trailRenderer = L.canvas({ pane: "ff-trails", padding: 0.1 });
      this.devices = new Map();
      this.dirty = new Set();
      this.shown = new Set();
      this.view = null;
      // Devices in the (padded) view at the latest move, drawn or about to be.
      this.inView = 0;
      this.trails = true;
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
        device = { id, lat: null, lon: null, at: "", inside: [], trail: [], marker: null, line: null, entry: null };
        this.devices.set(id, device);
      } else if (at && device.at && at < device.at) {
        return;
      }
      device.at = at || device.at;
      device.inside = Array.isArray(state.inside) ? state.inside : [];
      if (typeof lat === "number" && typeof lon === "number" && (lat !== device.lat || lon !== device.lon)) {
        device.lat = lat;
        device.lon = lon;
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
        }
      }
    }

    // Devices with a position: for fitting the view when there is no fence.
    bounds() {
      const bounds = L.latLngBounds([]);
      for (const device of this.devices.values()) {
        if (device.lat != null) bounds.extend([device.lat, device.lon]);
      }
      return bounds;
    }

    // The view moved: which devices come into view, which leave it, and whether trails fit.
    reconcile() {
      const bounds = this.map.getBounds().pad(0.1);
      this.view = { south: bounds.getSouth(), west: bounds.getWest(), north: bounds.getNorth(), east: bounds.getEast() };
      let inView = 0;
      for (const device of this.devices.values()) {
        const visible = this.visible(device);
        if (visible) inView++;
        if (visible !== (device.marker !== null)) this.dirty.add(device);
      }
      this.inView = inView;
      const trails = inView <= TRAIL_LIMIT;
      if (trails !== this.trails) {
        this.trails = trails;
        for (const device of this.shown) this.dirty.add(device);
      }
      this.loop.request();
    }

    visible(device) {
      const view = this.view;
      return device.lat !== null && view !== null && device.lat >= view.south && device.lat <= view.north &&
        device.lon >= view.west && device.lon <= view.east;
    }

    // The frame's work: marked devices drawn until `deadline`; the hovered device's tooltip.
    flush(deadline) {
      if (this.view === null) return false;
      let done = 0;
      for (const device of this.dirty) {
        this.dirty.delete(device);
        this.draw(device);
        if ((++done & 31) === 0 && performance.now() > deadline) break;
      }
      this.hover();
      return this.dirty.size > 0;
    }

    draw(device) {
      if (!this.visible(device)) {
        this.hide(device);
        return;
      }
      const colour = device.inside.length > 0 ? INSIDE : OUTSIDE;
      if (device.marker === null) {
        device.marker = L.circleMarker([device.lat, device.lon], {
          renderer: this.markerRenderer, radius: 5, weight: 1.5, color: "#ffffff", opacity: 1,
          fillColor: colour, fillOpacity: 1, interactive: false,
        }).addTo(this.map);
        device.entry = document.createElement("li");
        device.entry.setAttribute("data-device", device.id);
        device.entry.textContent = device.id;
        this.drawnList.appendChild(device.entry);
        this.shown.add(device);
      } else {
        const drawn = device.marker.getLatLng();
        if (drawn.lat !== device.lat || drawn.lng !== device.lon) device.marker.setLatLng([device.lat, device.lon]);
        if (device.marker.options.fillColor !== colour) device.marker.setStyle({ fillColor: colour });
      }
      const inside = device.inside.length > 0 ? "true" : "false";
      if (device.entry.getAttribute("data-inside") !== inside) device.entry.setAttribute("data-inside", inside);
      this.drawTrail(device);
    }

    drawTrail(device) {
      if (!this.trails || device.trail.length < 2) {
        if (device.line) {
          device.line.remove();
          device.line = null;
        }
        return;
      }
      if (device.line === null) {
        device.line = L.polyline(device.trail, {
          renderer: this.trailRenderer, color: "#495057", weight: 2, opacity: 0.45, interactive: false,
        }).addTo(this.map);
        device.lineEnd = device.trail[device.trail.length - 1];
      } else if (device.lineEnd !== device.trail[device.trail.length - 1]) {
        device.line.setLatLngs(device.trail);
        device.lineEnd = device.trail[device.trail.length - 1];
      }
    }

    hide(device) {
      if (device.marker) device.marker.remove();
      if (device.line) device.line.remove();
      if (device.entry) device.entry.remove();
      device.marker = null;
      device.line = null;
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
          const point = this.map.latLngToContainerPoint([device.lat, device.lon]);
          const distance = point.distanceTo(p);
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
