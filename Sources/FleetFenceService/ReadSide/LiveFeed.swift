import Synchronization

/// Server-Sent Events for the readers that follow the service live (the map): every alert, state
/// and fence change, as the topics carry them, once committed (docs/http.md "The HTTP interface").
///
/// The service never waits for a reader. Each subscriber has a bounded queue; one that falls
/// further behind than ``queueLimit`` is dropped, and its connection closed by whoever serves it.
/// A slot is taken for as long as the subscriber exists, dropped or not, and the slots are
/// capped, so that a client opening streams by the thousand costs the position path nothing.
public final class LiveFeed: Sendable {
    /// One event, framed once for every subscriber: `event: <name>` and one `data:` line.
    public struct Event: Sendable {
        public let frame: [UInt8]

        public init(name: String, data: [UInt8]) {
            // Our JSON has no raw newlines (strings escape them), so one data line carries it.
            self.frame = Array("event: \(name)\ndata: ".utf8) + data + Array("\n\n".utf8)
        }

        /// A comment line: keeps idle connections (and the proxies on their way) from timing out.
        public static let heartbeat = Event(frame: Array(": heartbeat\n\n".utf8))

        private init(frame: [UInt8]) {
            self.frame = frame
        }
    }

    public static let maxSubscribers = 64
    /// Events a subscriber may fall behind by: a map of 10,000 moving devices receives about that
    /// many a second.
    public static let queueLimit = 20_000

    private let subscribers = Mutex<[ObjectIdentifier: Subscriber]>([:])
    /// Set at a stop: no new subscriber.
    private let finished = Atomic(false)
    private let count = Atomic(0)
    private let dropped = Atomic(0)

    public init() {}

    /// Whether anyone listens: a single load, checked before an event is built.
    public var isActive: Bool { count.load(ordering: .relaxed) > 0 }
    public var subscriberCount: Int { count.load(ordering: .relaxed) }
    /// Subscribers dropped for falling behind, since start.
    public var droppedSubscribers: Int { dropped.load(ordering: .relaxed) }

    /// A new subscriber, or nil when every slot is taken. Call ``Subscriber/close()`` when done.
    public func subscribe() -> Subscriber? {
        guard !finished.load(ordering: .acquiring) else { return nil }
        let subscriber = Subscriber(feed: self)
        let added = subscribers.withLock { subscribers in
            guard subscribers.count < Self.maxSubscribers else { return false }
            subscribers[ObjectIdentifier(subscriber)] = subscriber
            return true
        }
        guard added else { return nil }
        count.add(1, ordering: .relaxed)
        return subscriber
    }

    public func send(_ event: Event) {
        send([event])
    }

    public func send(_ events: [Event]) {
        guard isActive, !events.isEmpty else { return }
        let all = subscribers.withLock { Array($0.values) }
        for subscriber in all where !subscriber.push(events) {
            dropped.add(1, ordering: .relaxed)
        }
    }

    /// Ends every subscriber, and takes no new one (at a stop).
    public func finishAll() {
        finished.store(true, ordering: .releasing)
        for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.end() }
    }

    fileprivate func release(_ subscriber: Subscriber) {
        if subscribers.withLock({ $0.removeValue(forKey: ObjectIdentifier(subscriber)) }) != nil {
            count.subtract(1, ordering: .relaxed)
        }
    }

    /// One reader's queue: the feed appends, the reader takes everything queued at once.
    public final class Subscriber: Sendable {
        private struct State {
            var queue: [Event] = []
            var waiter: CheckedContinuation<[Event]?, Never>?
            /// Dropped for falling behind, or the feed stopped.
            var ended = false
            var dropped = false
            var dropWaiters: [CheckedContinuation<Void, Never>] = []
        }

        private let state = Mutex(State())
        private weak let feed: LiveFeed?

        fileprivate init(feed: LiveFeed) {
            self.feed = feed
        }

        /// Every event queued, waiting for one if none is; nil once ended (what was still queued
        /// for a dropped subscriber is discarded: it fell behind).
        public func next() async -> [Event]? {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<[Event]?, Never>) in
                    let ready: [Event]?? = state.withLock { state in
                        if state.ended { return .some(nil) }
                        if !state.queue.isEmpty {
                            defer { state.queue.removeAll(keepingCapacity: true) }
                            return .some(state.queue)
                        }
                        state.waiter = continuation
                        return .none
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                end()
            }
        }

        /// Returns once the subscriber was dropped for falling behind (or ended): whoever serves
        /// it then closes its connection, also in the middle of a write to a stalled socket.
        public func waitUntilDropped() async {
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state in
                        if state.ended { return true }
                        state.dropWaiters.append(continuation)
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                end()
            }
        }

        /// False when this push dropped it.
        fileprivate func push(_ events: [Event]) -> Bool {
            let (waiter, taken, dropWaiters, droppedNow): (CheckedContinuation<[Event]?, Never>?, [Event]?, [CheckedContinuation<Void, Never>], Bool) =
                state.withLock { state in
                    if state.ended { return (nil, nil, [], false) }
                    if state.queue.count + events.count > LiveFeed.queueLimit {
                        state.ended = true
                        state.dropped = true
                        state.queue = []
                        defer { state.waiter = nil; state.dropWaiters = [] }
                        return (state.waiter, nil, state.dropWaiters, true)
                    }
                    state.queue += events
                    guard let waiter = state.waiter else { return (nil, nil, [], false) }
                    state.waiter = nil
                    defer { state.queue.removeAll(keepingCapacity: true) }
                    return (waiter, state.queue, [], false)
                }
            if droppedNow {
                waiter?.resume(returning: nil)
                for waiter in dropWaiters { waiter.resume() }
                return false
            }
            waiter?.resume(returning: taken)
            return true
        }

        /// Queues a comment line for this reader alone (``Event/heartbeat``).
        public func heartbeat() {
            _ = push([.heartbeat])
        }

        /// Ends it: the reader's `next` returns nil.
        public func end() {
            let (waiter, dropWaiters) = state.withLock { state in
                state.ended = true
                state.queue = []
                defer { state.waiter = nil; state.dropWaiters = [] }
                return (state.waiter, state.dropWaiters)
            }
            waiter?.resume(returning: nil)
            for waiter in dropWaiters { waiter.resume() }
        }

        /// Gives the slot back. Call it once the reader's connection is closed.
        public func close() {
            end()
            feed?.release(self)
        }
    }
}
