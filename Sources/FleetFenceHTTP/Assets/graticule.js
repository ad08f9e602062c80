// Lines every round number of degrees, minutes or seconds, labelled, for a map without base
// tiles: with the scale they let a person read positions and distances offline (docs/http.md "The
// map"). Drawn on a canvas fixed to the map's container, under the map's panes, and redrawn
// when the view changes.
(function (FleetFence) {
  "use strict";

  // Candidate spacings in arc-seconds, widest first: integers keep the labels exact.
  const STEPS = [162000, 108000, 72000, 36000, 18000, 7200, 3600, 1800, 1200, 600, 300, 120, 60, 30, 20, 10, 5, 2, 1];
  // Lines at least this far apart, in CSS pixels.
  const MIN_SPACING = 90;

  // The narrowest step whose lines stay MIN_SPACING apart, at `pixelsPerDegree`.
  function stepFor(pixelsPerDegree) {
    let chosen = STEPS[0];
    for (const step of STEPS) {
      if ((step / 3600) * pixelsPerDegree >= MIN_SPACING) chosen = step;
    }
    return chosen;
  }

  // `seconds` (an integer multiple of `step`) as 49°, 49°17′ or 49°17′30″, with a hemisphere.
  function label(seconds, step, positive, negative) {
    const hemisphere = seconds > 0 ? positive : seconds < 0 ? negative : "";
    let rest = Math.abs(seconds);
    const degrees = Math.floor(rest / 3600);
    rest -= degrees * 3600;
    const minutes = Math.floor(rest / 60);
    rest -= minutes * 60;
    let text = degrees + "°";
    if (step < 3600) text += String(minutes).padStart(2, "0") + "′";
    if (step < 60) text += String(rest).padStart(2, "0") + "″";
    return text + hemisphere;
  }

  // Longitudes of the world's copies left and right are labelled as in the main copy.
  function wrapLongitude(seconds) {
    const turn = 360 * 3600;
    let wrapped = ((seconds % turn) + turn) % turn;
    if (wrapped > turn / 2) wrapped -= turn;
    return wrapped;
  }

  const Graticule = L.Layer.extend({
    onAdd(map) {
      this._canvas = L.DomUtil.create("canvas", "ff-graticule", map.getContainer());
      this._canvas.setAttribute("aria-hidden", "true");
      this._frame = 0;
      map.on("move zoom viewreset resize", this._schedule, this);
      this._draw();
    },

    onRemove(map) {
      map.off("move zoom viewreset resize", this._schedule, this);
      if (this._frame) cancelAnimationFrame(this._frame);
      L.DomUtil.remove(this._canvas);
    },

    _schedule() {
      if (!this._frame) this._frame = requestAnimationFrame(() => this._draw());
    },

    _draw() {
      this._frame = 0;
      const map = this._map;
      if (!map) return;
      const size = map.getSize();
      const ratio = window.devicePixelRatio || 1;
      const canvas = this._canvas;
      if (canvas.width !== Math.round(size.x * ratio) || canvas.height !== Math.round(size.y * ratio)) {
        canvas.width = Math.round(size.x * ratio);
        canvas.height = Math.round(size.y * ratio);
        canvas.style.width = size.x + "px";
        canvas.style.height = size.y + "px";
      }
      const context = canvas.getContext("2d");
      context.setTransform(ratio, 0, 0, ratio, 0, 0);
      context.clearRect(0, 0, size.x, size.y);
      const bounds = map.getBounds();
      const west = bounds.getWest();
      const east = bounds.getEast();
      // Web Mercator ends short of the poles.
      const south = Math.max(bounds.getSouth(), -85);
      const north = Math.min(bounds.getNorth(), 85);
      if (!(east > west) || !(north > south)) return;
      const step = stepFor(size.x / (east - west));
      const middle = map.getCenter();

      context.lineWidth = 1;
      context.strokeStyle = "#c2c9d1";
      context.beginPath();
      const meridians = [];
      for (let i = Math.ceil((west * 3600) / step); i <= Math.floor((east * 3600) / step); i++) {
        const x = Math.round(map.latLngToContainerPoint([middle.lat, (i * step) / 3600]).x) + 0.5;
        context.moveTo(x, 0);
        context.lineTo(x, size.y);
        meridians.push([x, label(wrapLongitude(i * step), step, "E", "W")]);
      }
      const parallels = [];
      for (let i = Math.ceil((south * 3600) / step); i <= Math.floor((north * 3600) / step); i++) {
        const y = Math.round(map.latLngToContainerPoint([(i * step) / 3600, middle.lng]).y) + 0.5;
        context.moveTo(0, y);
        context.lineTo(size.x, y);
        parallels.push([y, label(i * step, step, "N", "S")]);
      }
      context.stroke();

      // Labels with a halo of the background, readable where they cross a line.
      context.font = "12px system-ui, sans-serif";
      context.lineWidth = 4;
      context.lineJoin = "round";
      context.strokeStyle = "#eef1f4";
      context.fillStyle = "#343a40";
      context.textBaseline = "top";
      context.textAlign = "center";
      for (const [x, text] of meridians) {
        // The zoom buttons sit in the top left corner.
        if (x < 60) continue;
        context.strokeText(text, x, 6);
        context.fillText(text, x, 6);
      }
      context.textBaseline = "middle";
      context.textAlign = "right";
      for (const [y, text] of parallels) {
        if (y < 24 || y > size.y - 40) continue;
        context.strokeText(text, size.x - 6, y);
        context.fillText(text, size.x - 6, y);
      }
    },
  });

  FleetFence.Graticule = Graticule;
})(window.FleetFence);
