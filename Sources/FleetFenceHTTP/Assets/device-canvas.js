// The canvas the devices are drawn on (docs/http.md "The map"). Leaflet's own canvas renderer fills
// and strokes a path per marker: with 10,000 markers in view a redraw took most of a second in
// software rendering, and one path for all markers of a colour was no better. Here a marker is
// drawn once per colour into a small sprite, and a redraw copies the sprite to each device's
// pixel; each device's projected position is kept until it moves or the zoom changes. Placed
// like Leaflet's renderers: in a pane, over the view and a margin, hidden while a zoom
// animates, reset when the view has moved.
(function (FleetFence) {
  "use strict";

  const PADDING = 0.1;

  const DeviceCanvas = L.Layer.extend({
    initialize(options) {
      L.setOptions(this, options);
    },

    onAdd() {
      this._canvas = L.DomUtil.create("canvas", "ff-device-canvas leaflet-zoom-hide");
      this._canvas.setAttribute("aria-hidden", "true");
      this.getPane().appendChild(this._canvas);
      this._projection = 0;
      this.reset();
    },

    onRemove() {
      L.DomUtil.remove(this._canvas);
    },

    // After a move or zoom: the canvas covers the view again; positions are projected anew
    // when the zoom changed.
    reset() {
      const map = this._map;
      if (!map) return;
      const size = map.getSize();
      const margin = size.multiplyBy(PADDING).round();
      this._topLeft = map.containerPointToLayerPoint(margin.multiplyBy(-1)).round();
      this._size = size.add(margin.multiplyBy(2));
      L.DomUtil.setPosition(this._canvas, this._topLeft);
      const ratio = window.devicePixelRatio || 1;
      this._canvas.width = Math.round(this._size.x * ratio);
      this._canvas.height = Math.round(this._size.y * ratio);
      this._canvas.style.width = this._size.x + "px";
      this._canvas.style.height = this._size.y + "px";
      this._ratio = ratio;
      if (this._zoom !== map.getZoom()) {
        this._zoom = map.getZoom();
        this._scale = 256 * Math.pow(2, this._zoom);
        this._projection++;
      }
      const origin = map.getPixelOrigin();
      this._offsetX = origin.x + this._topLeft.x;
      this._offsetY = origin.y + this._topLeft.y;
    },

    // Web Mercator pixels at the current zoom, as Leaflet's EPSG:3857 projects them.
    _x(lon) {
      return (this._scale * (lon + 180)) / 360;
    },

    _y(lat) {
      const sin = Math.max(-0.9999, Math.min(0.9999, Math.sin((lat * Math.PI) / 180)));
      return this._scale * (0.5 - (0.25 * Math.log((1 + sin) / (1 - sin))) / Math.PI);
    },

    // A device's position on the canvas, kept in the device until it moves (`projected` reset
    // by the caller) or the zoom changes.
    _place(device) {
      if (device.projected !== this._projection) {
        device.x = this._x(device.lon);
        device.y = this._y(device.lat);
        device.projected = this._projection;
      }
    },

    // A marker of `colour` and `radius` with a white rim, in device pixels, drawn once.
    _sprite(colour, radius) {
      this._sprites = this._sprites || {};
      const key = colour + "@" + radius + "@" + this._ratio;
      if (!this._sprites[key]) {
        const size = Math.ceil((2 * radius + 3) * this._ratio);
        const sprite = document.createElement("canvas");
        sprite.width = size;
        sprite.height = size;
        const context = sprite.getContext("2d");
        context.scale(this._ratio, this._ratio);
        context.beginPath();
        context.arc(size / this._ratio / 2, size / this._ratio / 2, radius, 0, 2 * Math.PI);
        context.fillStyle = colour;
        context.fill();
        context.lineWidth = radius > 3 ? 1.5 : 1;
        context.strokeStyle = "#ffffff";
        context.stroke();
        this._sprites[key] = sprite;
      }
      return this._sprites[key];
    },

    // Draws `devices` (those in view) as markers of `radius`: trails under them when `trails`,
    // then the devices outside every fence, then those inside one on top.
    draw(devices, trails, colours, radius) {
      if (!this._map) return;
      const context = this._canvas.getContext("2d");
      const ratio = this._ratio;
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      context.clearRect(0, 0, this._size.x, this._size.y);
      const dx = this._offsetX;
      const dy = this._offsetY;
      if (trails) {
        context.beginPath();
        for (const device of devices) {
          const trail = device.trail;
          if (trail.length < 2) continue;
          context.moveTo(this._x(trail[0][1]) - dx, this._y(trail[0][0]) - dy);
          for (let i = 1; i < trail.length; i++) context.lineTo(this._x(trail[i][1]) - dx, this._y(trail[i][0]) - dy);
        }
        context.lineWidth = 2;
        // Bevel joins: at 2 px they look as round ones and cost less to rasterise.
        context.lineJoin = "bevel";
        context.strokeStyle = "rgba(73, 80, 87, 0.45)";
        context.stroke();
      }
      // Sprites go to whole device pixels: a copy, not a resampling.
      context.setTransform(1, 0, 0, 1, 0, 0);
      for (const inside of [false, true]) {
        const sprite = this._sprite(inside ? colours.inside : colours.outside, radius);
        const half = sprite.width / 2;
        for (const device of devices) {
          if ((device.inside.length > 0) !== inside) continue;
          this._place(device);
          context.drawImage(sprite, Math.round((device.x - dx) * ratio - half), Math.round((device.y - dy) * ratio - half));
        }
      }
    },
  });

  FleetFence.DeviceCanvas = DeviceCanvas;
})(window.FleetFence);
