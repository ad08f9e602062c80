import Synchronization

/// Server-Sent Events for the readers that follow the service live (the map): every alert, state
/// and fence change, as the topics carry them, once committed.
///
/// A subscriber is a bounded buffer. The service never waits for one: a subscriber whose buffer
/// is full is dropped, and its stream ends. The number of subscribers is capped, so that a client
/// opening streams by the thousand costs the position path nothing (README, "The HTTP interface").
public final class LiveFeed: Sendable {
    /// One event, framed once for every subscriber: `event: <name>` and one `data:` line.
    public struct Event: Sendable {
        public let name: String
        public let frame: [UInt8]

        public init(name: String, data: [UInt8]) {
            self.name = name
            // Our JSON has no raw newlines (strings escape them), so one data line carries it.
            self.frame = Array("event: \(name)\ndata: ".utf8) + data + Array("\n\n".utf8)
        }
    }

    public static let maxSubscribers = 64
    /// Events a subscriber may fall behind by: a map of 10,000 moving devices receives about that
    /// many a second.
    public static let bufferedEvents = 20_000

    private let subscribers = Mutex<[Int: AsyncStream<Event>.Continuation]>([:])
    private let active = Atomic(0)
    private let nextID = Atomic(0)
    private let dropped = Atomic(0)

    public init() {}

    /// Whether anyone listens: a single load, checked before an event is built.
    public var isActive: Bool { active.load(ordering: .relaxed) > 0 }

    public var subscriberCount: Int { active.load(ordering: .relaxed) }
    /// Subscribers dropped for falling behind, since start.
    public var droppedSubscribers: Int { dropped.load(ordering: .relaxed) }

    /// A new subscriber's events, or nil when the cap is reached.
    public func subscribe() -> AsyncStream<Event>? {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(
            of: Event.self, bufferingPolicy: .bufferingOldest(Self.bufferedEvents))
        let added = subscribers.withLock { subscribers in
            guard subscribers.count < Self.maxSubscribers else { return false }
            subscribers[id] = continuation
            return true
        }
        guard added else { return nil }
        active.add(1, ordering: .relaxed)
        continuation.onTermination = { [weak self] _ in self?.remove(id) }
        return stream
    }

    public func send(_ event: Event) {
        guard isActive else { return }
        send([event])
    }

    public func send(_ events: [Event]) {
        guard isActive, !events.isEmpty else { return }
        var behind: [AsyncStream<Event>.Continuation] = []
        subscribers.withLock { subscribers in
            for (id, continuation) in subscribers {
                for event in events {
                    if case .dropped = continuation.yield(event) {
                        subscribers[id] = nil
                        behind.append(continuation)
                        break
                    }
                }
            }
        }
        // Outside the lock: finishing runs onTermination, which takes it.
        for continuation in behind {
            dropped.add(1, ordering: .relaxed)
            active.subtract(1, ordering: .relaxed)
            continuation.finish()
        }
    }

    private func remove(_ id: Int) {
        if subscribers.withLock({ $0.removeValue(forKey: id) }) != nil {
            active.subtract(1, ordering: .relaxed)
        }
    }

    /// Ends every stream (at a stop).
    public func finishAll() {
        let all = subscribers.withLock { subscribers in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        active.subtract(all.count, ordering: .relaxed)
        for continuation in all { continuation.finish() }
    }
}
