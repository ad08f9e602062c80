// `/api/stream`, followed for as long as the page is open (docs/http.md "The map"). Events are only
// queued as they arrive and applied in the frame loop, in the frame's budget. While a seed is
// being fetched (at load and after each reconnection) the queue is held, then applied on top
// of it: nothing that happened in between is lost. A hidden tab gets no animation frames, so
// there events are applied at once (they only change records; drawing waits for the tab).
(function (FleetFence) {
  "use strict";

  const RETRY_MS = 3000;

  class LiveStream {
    // `handlers`: a function per event name (`alert`, `state`, `fence`) taking the parsed data;
    // `onOpen()`: called on each (re)connection, to fetch a seed.
    constructor(url, handlers, loop, onOpen) {
      this.url = url;
      this.handlers = handlers;
      this.loop = loop;
      this.onOpen = onOpen;
      this.queue = [];
      this.head = 0;
      this.held = 0;
      this.state = "connecting";
      this.source = null;
      this.connect();
    }

    connect() {
      const source = new EventSource(this.url);
      this.source = source;
      for (const name of Object.keys(this.handlers)) {
        source.addEventListener(name, (event) => this.receive(name, event.data));
      }
      source.onopen = () => {
        this.state = "live";
        this.loop.request();
        this.onOpen();
      };
      source.onerror = () => {
        this.state = "reconnecting";
        this.loop.request();
        // The browser retries by itself unless the answer was not a stream at all.
        if (source.readyState === EventSource.CLOSED) {
          setTimeout(() => {
            if (this.source === source) this.connect();
          }, RETRY_MS);
        }
      };
    }

    // Until `release()`: events wait in the queue.
    hold() {
      this.held++;
    }

    release() {
      this.held--;
      this.loop.request();
    }

    receive(name, data) {
      this.queue.push(name, data);
      if (document.hidden && !this.held) {
        this.process(Infinity);
      } else {
        this.loop.request();
      }
    }

    // The frame's work: queued events applied until `deadline`; true when some are left.
    process(deadline) {
      if (this.held) return false;
      const queue = this.queue;
      let i = this.head;
      while (i < queue.length) {
        this.apply(queue[i], queue[i + 1]);
        i += 2;
        if ((i & 63) === 0 && performance.now() > deadline) break;
      }
      if (i >= queue.length) {
        this.queue = [];
        this.head = 0;
        return false;
      }
      this.head = i;
      return true;
    }

    apply(name, data) {
      let value;
      try {
        value = JSON.parse(data);
      } catch (error) {
        console.warn("FleetFence: unreadable " + name + " event", data);
        return;
      }
      this.handlers[name](value);
    }
  }

  FleetFence.LiveStream = LiveStream;
})(window.FleetFence);
