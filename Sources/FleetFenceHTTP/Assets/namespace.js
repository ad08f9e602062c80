// The one global of the map page: every script adds its part to `FleetFence` and nothing else
// to `window` (docs/http.md "The map").
(function () {
  "use strict";
  const config = JSON.parse(document.getElementById("fleetfence-config").textContent);
  window.FleetFence = { config: Object.freeze(config) };
})();
