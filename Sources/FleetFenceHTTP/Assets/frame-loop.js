// Work on the map is done once per animation frame, in a time budget: a burst of thousands of
// stream events becomes a few frames of work instead of one long freeze (docs/http.md "The map").
(function (FleetFence) {
  "use strict";

  class FrameLoop {
    // `budget`: milliseconds of work per frame, leaving the rest of ~16 ms to the browser.
    constructor(budget) {
      this.budget = budget;
      this.tasks = [];
      this.pending = 0;
    }

    // `task(deadline)` does what it can before `performance.now()` passes `deadline` and
    // returns true when work is left for the next frame.
    add(task) {
      this.tasks.push(task);
    }

    request() {
      if (!this.pending) this.pending = requestAnimationFrame(() => this.run());
    }

    run() {
      this.pending = 0;
      const deadline = performance.now() + this.budget;
      let more = false;
      for (const task of this.tasks) {
        if (task(deadline)) more = true;
      }
      if (more) this.request();
    }
  }

  FleetFence.FrameLoop = FrameLoop;
})(window.FleetFence);
