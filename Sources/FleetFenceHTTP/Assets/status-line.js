// The status line: whether the map follows the service live, and what it shows. Only the
// connection is a live region: counts change too often to be announced.
(function (FleetFence) {
  "use strict";

  const WORDS = { connecting: "Connecting…", loading: "Loading…", live: "Live", reconnecting: "Reconnecting…" };

  function count(n, one, many) {
    return n.toLocaleString("en") + " " + (n === 1 ? one : many);
  }

  class StatusLine {
    constructor(element) {
      this.element = element;
      this.connection = element.querySelector(".connection");
      this.counts = element.querySelector(".counts");
    }

    // Each part rewritten only when it reads differently.
    show(connection, devices, inView, fences) {
      const word = WORDS[connection] || connection;
      if (this.connection.textContent !== word) {
        this.connection.textContent = word;
        this.element.dataset.connection = connection;
      }
      const counts = "· " + count(devices, "device", "devices") + " (" + inView.toLocaleString("en") + " in view) · " +
        count(fences, "fence", "fences");
      if (this.counts.textContent !== counts) this.counts.textContent = counts;
    }
  }

  FleetFence.StatusLine = StatusLine;
})(window.FleetFence);
