// The latest alerts beside the map, newest first (docs/http.md "The map"): seeded from the history,
// then each alert of the stream on top as it arrives. Each alert once (a device's `seq` is
// unique), at most LIMIT of them.
(function (FleetFence) {
  "use strict";

  const LIMIT = 200;
  // A busy fleet raises alerts by the hundred a second: the list changes at most this often,
  // and new items are highlighted only when a few arrive at a time.
  const INTERVAL_MS = 250;
  const HIGHLIGHT_MAX = 3;

  function two(n) {
    return String(n).padStart(2, "0");
  }

  // Local time of day; the date too when it is not today. The exact UTC time is the title.
  function shortTime(date) {
    const time = two(date.getHours()) + ":" + two(date.getMinutes()) + ":" + two(date.getSeconds());
    const now = new Date();
    if (date.toDateString() === now.toDateString()) return time;
    return date.getFullYear() + "-" + two(date.getMonth() + 1) + "-" + two(date.getDate()) + " " + time;
  }

  function span(className, text) {
    const element = document.createElement("span");
    element.className = className;
    element.textContent = text;
    return element;
  }

  class AlertList {
    // `fenceName(id)` names a fence that an alert does not name.
    constructor(list, fenceName) {
      this.list = list;
      this.fenceName = fenceName;
      this.keys = new Set();
      this.pending = [];
      this.shownAt = 0;
    }

    // Queues an alert for the next frame; `live`: it came from the stream.
    add(alert, live) {
      if (!alert || typeof alert.device !== "string") return;
      const key = alert.device + "\u0000" + alert.seq;
      if (this.keys.has(key)) return;
      this.keys.add(key);
      this.pending.push({ alert, live, key });
      if (this.pending.length > LIMIT) {
        for (const dropped of this.pending.splice(0, this.pending.length - LIMIT)) this.keys.delete(dropped.key);
      }
    }

    get size() {
      return this.list.children.length;
    }

    // The frame's work: what was queued goes on top, newest first. True while some waits.
    flush() {
      if (this.pending.length === 0) return false;
      const now = performance.now();
      if (now - this.shownAt < INTERVAL_MS) return true;
      this.shownAt = now;
      const highlight = this.pending.length <= HIGHLIGHT_MAX;
      const fragment = document.createDocumentFragment();
      for (let i = this.pending.length - 1; i >= 0; i--) fragment.appendChild(this.item(this.pending[i], highlight));
      this.pending = [];
      this.list.insertBefore(fragment, this.list.firstChild);
      while (this.list.children.length > LIMIT) {
        const last = this.list.lastElementChild;
        this.keys.delete(last.dataset.key);
        last.remove();
      }
      return false;
    }

    item(entry, highlight) {
      const alert = entry.alert;
      const item = document.createElement("li");
      item.className = "ff-alert ff-" + String(alert.event).replace(/[^a-z_]/g, "");
      if (entry.live && highlight) item.classList.add("ff-new");
      item.dataset.key = entry.key;
      item.dataset.device = alert.device;
      item.dataset.fence = String(alert.fence);
      item.dataset.event = String(alert.event);
      item.dataset.seq = String(alert.seq);
      const time = document.createElement("time");
      const at = new Date(alert.at);
      if (!isNaN(at.getTime())) {
        time.dateTime = alert.at;
        time.title = alert.at;
        time.textContent = shortTime(at);
      }
      item.appendChild(time);
      item.appendChild(span("ff-event", String(alert.event)));
      item.appendChild(span("ff-device", alert.device));
      const fence = span("ff-fence", alert.name || this.fenceName(String(alert.fence)));
      fence.title = "fence " + alert.fence;
      item.appendChild(fence);
      if (alert.reason) item.appendChild(span("ff-reason", String(alert.reason).replace(/_/g, " ")));
      return item;
    }
  }

  FleetFence.AlertList = AlertList;
})(window.FleetFence);
