import Dispatch
import FleetFenceService
import MQTT
import Synchronization

/// A broker in the test's process, for the service's rules tests: what those tests need of MQTT
/// without a mosquitto to start (topic filters as MQTT matches them, retained messages, QoS 1
/// sessions that keep messages for a client while it is away, last wills, refused subscriptions
/// on request). Clients are ``MessageBus``es, so the real `GeofenceService` runs on it unchanged:
/// `GeofenceService(..., bus: broker.factory)`.
///
/// Each client's handlers run on a serial queue of its own, one message at a time, in the order
/// the broker routed them, as libmosquitto's network thread calls them. ``settled()`` returns once
/// every message routed so far has been handled, so a test waits on that instead of sleeping.
///
/// What only mosquitto shows (TLS, ACLs, its dynamic security, a broker killed or restarted,
/// slow sockets) is tested against mosquitto itself. Where the service can tell the two apart,
/// `MessageBusConformanceTests` runs the same steps on both, mosquitto being the reference.
public final class InMemoryBroker: Sendable {
    struct Session {
        var subscriptions: [String: Int32] = [:]
        /// Messages routed while the client was away (persistent sessions only).
        var missed: [ReceivedMessage] = []
        /// Weak: a client dropped without `disconnect` must reach its deinit, which ends its
        /// connection as a crash would (the will published).
        weak var client: InMemoryClient?
        /// The attached connection, so that the end of an earlier one (taken over) is no end of it.
        var connection: UInt64 = 0
    }

    private struct State {
        var sessions: [String: Session] = [:]
        /// Retained messages by topic, its bytes: Swift's String equality would take two topics
        /// that differ only in Unicode normalization for one, and MQTT tells them apart.
        var retained: [[UInt8]: ReceivedMessage] = [:]
        /// Filters a SUBSCRIBE is refused for (SUBACK 0x80), as an ACL would.
        var refusing: Set<String> = []
        /// Messages handed to a client's queue and not yet handled.
        var inFlight = 0
        var settledWaiters: [CheckedContinuation<Void, Never>] = []
        var anonymous = 0
        var connections: UInt64 = 0
        /// The client ids that published to each topic (wills included), for tests of which
        /// connection says what.
        var publishers: [String: Set<String>] = [:]
    }

    private let state = Mutex(State())
    private let queuesQoS0Messages: Bool

    /// - Parameter queuesQoS0Messages: whether a persistent session absent keeps QoS 0 messages
    ///   too, as mosquitto's `queue_qos0_messages`. On by default, as in the shipped
    ///   Config/mosquitto.conf and `LocalMosquitto`'s broker; mosquitto's own default is off.
    public init(queuesQoS0Messages: Bool = true) {
        self.queuesQoS0Messages = queuesQoS0Messages
    }

    /// Makes clients of this broker, in the service's signature.
    public var factory: MessageBusFactory {
        { options in InMemoryClient(broker: self, options: options) }
    }

    /// A client of this broker (not connected yet).
    public func client(id: String? = nil, cleanSession: Bool = true, will: MQTTWill? = nil) -> InMemoryClient {
        var options = MQTTOptions(url: MQTTURL(host: "in-memory"), clientID: id, cleanSession: cleanSession)
        options.will = will
        return InMemoryClient(broker: self, options: options)
    }

    /// A client, connected.
    public func connectedClient(id: String? = nil) async throws -> InMemoryClient {
        let client = client(id: id)
        try await client.connect(timeout: .seconds(1))
        return client
    }

    /// From now on a SUBSCRIBE to `filter` is refused, until ``grant(_:)``.
    public func refuse(_ filter: String) { state.withLock { _ = $0.refusing.insert(filter) } }
    public func grant(_ filter: String) { state.withLock { _ = $0.refusing.remove(filter) } }

    /// The retained messages a subscriber to `filter` would receive now, by topic.
    public func retained(_ filter: String) -> [ReceivedMessage] {
        state.withLock { state in
            state.retained.values.filter { MQTTTopicFilter.matches(filter, topic: $0.topic) }.sorted { $0.topic < $1.topic }
        }
    }

    /// The ids of the clients that published to a topic matching `filter` so far (a will counts as
    /// its client's).
    public func publishers(of filter: String) -> Set<String> {
        state.withLock { state in
            state.publishers.filter { MQTTTopicFilter.matches(filter, topic: $0.key) }.values.reduce(into: []) { $0.formUnion($1) }
        }
    }

    /// The ids of the sessions subscribed to a filter that matches `topic`.
    public func subscribers(of topic: String) -> Set<String> {
        state.withLock { state in
            Set(state.sessions.filter { $0.value.subscriptions.keys.contains { MQTTTopicFilter.matches($0, topic: topic) } }.keys)
        }
    }

    /// Returns once every message routed so far has been handled by its client (and what those
    /// handlers published in turn).
    public func settled() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.inFlight == 0 { return true }
                state.settledWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    // MARK: Clients' side

    /// Connects `client`: a client of the same id already connected is disconnected, as MQTT
    /// takes a session over. Returns the connection (for ``detach``) and the filters refused.
    func attach(_ client: InMemoryClient, filters: [String: Int32]) -> (connection: UInt64, refused: [String]) {
        let (connection, refused, previous) = state.withLock { state -> (UInt64, [String], InMemoryClient?) in
            let id = client.id
            var session = client.options.cleanSession ? Session() : state.sessions[id] ?? Session()
            let previous = state.sessions[id]?.client
            state.connections += 1
            session.client = client
            session.connection = state.connections
            let missed = session.missed
            session.missed = []
            state.sessions[id] = session
            let (refused, retained) = subscribe(client, filters, in: &state)
            // Under the lock, as `route` does: nothing routed meanwhile overtakes them.
            for message in missed + retained { deliver(message, to: client, in: &state) }
            return (state.connections, refused, previous)
        }
        if let previous, previous !== client { previous.lostConnection(publishWill: true) }
        return (connection, refused)
    }

    /// Subscribes a connected client; returns the filters refused.
    func subscribe(_ client: InMemoryClient, connection: UInt64, _ filters: [String: Int32]) -> [String] {
        state.withLock { state in
            guard state.sessions[client.id]?.connection == connection else { return [] }
            let (refused, retained) = subscribe(client, filters, in: &state)
            for message in retained { deliver(message, to: client, in: &state) }
            return refused
        }
    }

    private func subscribe(
        _ client: InMemoryClient, _ filters: [String: Int32], in state: inout State
    ) -> (refused: [String], retained: [ReceivedMessage]) {
        var refused: [String] = []
        var retained: [ReceivedMessage] = []
        for (filter, qos) in filters.sorted(by: { $0.key < $1.key }) {
            if state.refusing.contains(filter) {
                refused.append(filter)
                continue
            }
            state.sessions[client.id, default: Session()].subscriptions[filter] = qos
            for message in state.retained.values.sorted(by: { $0.topic < $1.topic })
            where MQTTTopicFilter.matches(filter, topic: message.topic) {
                var copy = message
                copy.qos = min(qos, message.qos)
                retained.append(copy)
            }
        }
        return (refused, retained)
    }

    /// Ends a client's `connection`; `will` is published unless it said goodbye. Takes no client:
    /// a client dropped without `disconnect` calls it from its deinit.
    func detach(id: String, connection: UInt64, cleanSession: Bool, will: MQTTWill?) {
        state.withLock { state in
            guard state.sessions[id]?.connection == connection else { return }
            if cleanSession {
                state.sessions[id] = nil
            } else {
                state.sessions[id]?.client = nil
            }
        }
        if let will {
            route(ReceivedMessage(topic: will.topic, payload: will.payload, qos: will.qos, retain: will.retain), from: id)
        }
    }

    /// Whether `connection` is the broker's current one for the client `id`.
    func holds(id: String, connection: UInt64) -> Bool {
        state.withLock { $0.sessions[id]?.connection == connection && $0.sessions[id]?.client != nil }
    }

    /// Drops the client's connection and its session, will unsent (``InMemoryClient/brokerForgotUnnoticed()``).
    func forget(id: String, connection: UInt64) {
        state.withLock { state in
            guard state.sessions[id]?.connection == connection else { return }
            state.sessions[id] = nil
        }
    }

    /// Stores what is retained and hands the message to every matching subscriber's queue, under
    /// the lock, so that each subscriber sees one publisher's messages in order.
    func route(_ message: ReceivedMessage, from publisher: String) {
        state.withLock { state in
            state.publishers[message.topic, default: []].insert(publisher)
            if message.retain {
                state.retained[Array(message.topic.utf8)] = message.payload.isEmpty ? nil : message
            }
            for (id, session) in state.sessions {
                guard let granted = Self.grantedQoS(session.subscriptions, topic: message.topic) else { continue }
                // Retained only when sent for a new subscription (MQTT 3.1.1, 3.3.1.3).
                let delivered = ReceivedMessage(
                    topic: message.topic, payload: message.payload, qos: min(granted, message.qos), retain: false)
                if let client = session.client {
                    deliver(delivered, to: client, in: &state)
                } else if delivered.qos > 0 || queuesQoS0Messages {
                    state.sessions[id]?.missed.append(delivered)
                }
            }
        }
    }

    /// One copy per client, as mosquitto 2 sends it (its `allow_duplicate_messages false`): at the
    /// QoS of the matching subscription its topic tree reaches first, not the highest of them that
    /// MQTT 3.1.1 (3.3.5) asks for. `nil` when none matches.
    private static func grantedQoS(_ subscriptions: [String: Int32], topic: String) -> Int32? {
        var first: (filter: String, qos: Int32)?
        for (filter, qos) in subscriptions where MQTTTopicFilter.matches(filter, topic: topic) {
            if let earlier = first, !treeOrder(filter, topic: topic).lexicographicallyPrecedes(treeOrder(earlier.filter, topic: topic)) {
                continue
            }
            first = (filter, qos)
        }
        return first?.qos
    }

    /// Where mosquitto's search of its subscription tree reaches `filter` (which matches `topic`):
    /// level by level, a literal level before `+` before `#`; past the topic's last level `a/#`
    /// before `a`.
    private static func treeOrder(_ filter: String, topic: String) -> [Int] {
        let slash = UInt8(ascii: "/")
        let topicLevels = topic.utf8.count(where: { $0 == slash }) + 1
        let levels = Array(filter.utf8).split(separator: slash, omittingEmptySubsequences: false)
        var order = levels.enumerated().map { index, level in
            let wildcard = level.elementsEqual("#".utf8) ? 2 : level.elementsEqual("+".utf8) ? 1 : 0
            return index < topicLevels ? wildcard : 0
        }
        if levels.count == topicLevels { order.append(1) }
        return order
    }

    private func deliver(_ message: ReceivedMessage, to client: InMemoryClient, in state: inout State) {
        state.inFlight += 1
        client.enqueue(message)
    }

    /// A client queued a job of its own (a connection change) that ``settled()`` waits for.
    func started() { state.withLock { $0.inFlight += 1 } }

    /// A client handled one message (or job).
    func handled() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight -= 1
            guard state.inFlight == 0 else { return [] }
            defer { state.settledWaiters = [] }
            return state.settledWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func anonymousID() -> String {
        state.withLock { state in
            state.anonymous += 1
            return "in-memory-\(state.anonymous)"
        }
    }
}
