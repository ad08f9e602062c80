import Dispatch
import FleetFenceService
import MQTT
import Synchronization

/// A client of an ``InMemoryBroker``: the service's ``MessageBus`` without a socket. It behaves as
/// ``MQTTClient`` does where the service can tell: handlers on a serial queue of its own, filters
/// subscribed again at every (re)connect, QoS 1 publishes held while disconnected and sent after
/// the reconnect, QoS 0 dropped then, refused filters listed until a retry is granted.
public final class InMemoryClient: MessageBus {
    private struct State {
        var started = false
        var connected = false
        /// The broker's number for the current connection (``InMemoryBroker/detach``).
        var connection: UInt64 = 0
        var filters: [String: Int32] = [:]
        var refused: [String] = []
        /// QoS 1 publishes made while disconnected, sent after the reconnect.
        var outbox: [ReceivedMessage] = []
        /// QoS 1 publishes accepted: the broker acknowledges each as it routes it, so all but
        /// the outbox's are acknowledged (in order, as the outbox is sent in order).
        var issued: UInt64 = 0
        var onMessage: (@Sendable (MQTTMessage) -> Void)?
        var onConnectionChange: (@Sendable (Bool) -> Void)?
        var onSubscribed: (@Sendable () -> Void)?
        /// ``confirmSubscriptions()`` calls not answered yet on this connection.
        var unanswered = 0
        var onAcknowledged: (@Sendable () -> Void)?
    }

    private let broker: InMemoryBroker
    public let options: MQTTOptions
    let id: String
    private let state = Mutex(State())
    private let queue: DispatchQueue

    init(broker: InMemoryBroker, options: MQTTOptions) {
        self.broker = broker
        self.options = options
        self.id = options.clientID ?? broker.anonymousID()
        queue = DispatchQueue(label: "in-memory-client-\(id)")
    }

    deinit {
        // Dropped without `disconnect`, like a crash: the broker publishes the will.
        if let connection = state.withLock({ $0.connected ? $0.connection : nil }) {
            broker.detach(id: id, connection: connection, cleanSession: options.cleanSession, will: options.will)
        }
    }

    public func onMessage(_ handler: @escaping @Sendable (MQTTMessage) -> Void) {
        state.withLock { $0.onMessage = handler }
    }

    public func onConnectionChange(_ handler: @escaping @Sendable (Bool) -> Void) {
        state.withLock { $0.onConnectionChange = handler }
    }

    public func onAcknowledged(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onAcknowledged = handler }
    }

    public func onSubscribed(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onSubscribed = handler }
    }

    public func subscribe(_ filters: [String], qos: Int32) {
        let wanted = Dictionary(filters.map { ($0, qos) }, uniquingKeysWith: { $1 })
        let connection = state.withLock { state in
            state.filters.merge(wanted) { $1 }
            return state.connected ? state.connection : nil
        }
        guard let connection else { return }
        let refused = broker.subscribe(self, connection: connection, wanted)
        state.withLock { state in
            state.refused.removeAll { wanted[$0] != nil }
            state.refused += refused
        }
    }

    public func connect(timeout: Duration) async throws {
        let alreadyStarted = state.withLock { state in
            defer { state.started = true }
            return state.started
        }
        if alreadyStarted { throw MQTTError.alreadyStarted }
        establish()
    }

    /// The connection up: what waited in the outbox sent, the handler told (on the client's
    /// queue, before any message, as libmosquitto calls it) and subscriptions made again, then
    /// told as acknowledged.
    private func establish() {
        let (handler, acknowledged) = state.withLock { state in
            // Connected before the handler runs, as MQTTClient is when it calls it. The outbox is
            // routed under the lock: a publish made once connected does not overtake it.
            state.connected = true
            state.unanswered = 0
            for message in state.outbox { broker.route(message, from: id) }
            defer { state.outbox = [] }
            return (state.onConnectionChange, state.outbox.isEmpty ? nil : state.onAcknowledged)
        }
        if let acknowledged { run { acknowledged() } }
        // Queued before the broker hands anything to the queue: on_connect comes before any
        // message of the connection.
        if let handler { run { handler(true) } }
        let (connection, refused) = broker.attach(self, filters: state.withLock { $0.filters })
        let subscribed = state.withLock { state in
            state.connection = connection
            state.refused = refused
            return state.onSubscribed
        }
        // The broker subscribed them in `attach`: heard from now on, unless the connection has
        // ended meanwhile (MQTTClient tells no SUBACK after the loss it reported).
        if let subscribed {
            run { [self] in
                if state.withLock({ $0.connected && $0.connection == connection }) { subscribed() }
            }
        }
    }

    /// Answered at once on the client's queue while the broker holds the connection. One it has
    /// forgotten (``brokerForgotUnnoticed()``) is found lost, as MQTTClient finds it when its
    /// UNSUBSCRIBE cannot be written or read back.
    public func confirmSubscriptions() {
        guard let connection = state.withLock({ $0.connected ? $0.connection : nil }) else { return }
        guard broker.holds(id: id, connection: connection) else {
            lostConnection(publishWill: false)
            return
        }
        let subscribed = state.withLock { state in
            state.unanswered += 1
            return state.onSubscribed
        }
        run { [self] in
            let current = state.withLock { state in
                guard state.connected, state.connection == connection else { return false }
                state.unanswered -= 1
                return true
            }
            if current { subscribed?() }
        }
    }

    public var confirmingSubscriptions: Bool { state.withLock { $0.connected && $0.unanswered > 0 } }

    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> MQTTPublishResult {
        let message = ReceivedMessage(topic: topic, payload: payload, qos: qos, retain: retain)
        let result: MQTTPublishResult = state.withLock { state in
            guard state.started else { return .dropped(.notStarted) }
            guard state.connected else {
                guard qos > 0 else { return .dropped(.notConnected) }
                state.outbox.append(message)
                state.issued += 1
                return .queued
            }
            if qos > 0 { state.issued += 1 }
            return .sent
        }
        if result == .sent {
            broker.route(message, from: id)
            if qos > 0, let acknowledged = state.withLock({ $0.onAcknowledged }) { run { acknowledged() } }
        }
        return result
    }

    /// Sorted, as MQTTClient lists them.
    public var refusedSubscriptions: [String] { state.withLock { $0.refused.sorted() } }

    public func retryRefusedSubscriptions() {
        let refused = state.withLock { state in state.refused }
        guard !refused.isEmpty else { return }
        let qos = state.withLock { state in refused.map { state.filters[$0] ?? 1 } }
        for (filter, qos) in zip(refused, qos) { subscribe([filter], qos: qos) }
    }

    public var isConnected: Bool { state.withLock { $0.connected } }

    public var publishTickets: PublishTickets {
        state.withLock { PublishTickets(issued: $0.issued, acknowledgedThrough: $0.issued - UInt64($0.outbox.count)) }
    }

    /// The broker acknowledges a QoS 1 publish as it routes it: only what waits for a reconnect
    /// is unacknowledged.
    public func waitForPublishes(timeout: Duration) async -> Bool {
        state.withLock { $0.outbox.isEmpty }
    }

    public func disconnect() async {
        let (connection, handler) = state.withLock { state in
            defer { (state.connected, state.started) = (false, false) }
            return (state.connected ? state.connection : nil, state.onConnectionChange)
        }
        guard let connection else { return }
        broker.detach(id: id, connection: connection, cleanSession: options.cleanSession, will: nil)
        // Told, as MQTTClient tells it of every end of a connection.
        if let handler { run { handler(false) } }
        // Returns once no handler of this client runs any more, as MQTTClient joins its thread.
        queue.sync {}
    }

    /// The connection lost (another client took the id over, or a test cut it): the will is
    /// published and the handler told. The client does not come back by itself.
    public func lostConnection(publishWill: Bool) {
        let ended = state.withLock { state -> (connection: UInt64, handler: (@Sendable (Bool) -> Void)?)? in
            guard state.connected else { return nil }
            state.connected = false
            return (state.connection, state.onConnectionChange)
        }
        guard let ended else { return }
        broker.detach(id: id, connection: ended.connection, cleanSession: options.cleanSession, will: publishWill ? options.will : nil)
        if let handler = ended.handler { run { handler(false) } }
    }

    /// The broker forgets this client's connection and session, as a broker restarted without
    /// persistence does, and the client is not told: as a network thread far behind its socket
    /// has not read the end of it yet. It finds out when it next asks the broker for an answer.
    public func brokerForgotUnnoticed() {
        guard let connection = state.withLock({ $0.connected ? $0.connection : nil }) else { return }
        broker.forget(id: id, connection: connection)
    }

    /// Connects again after ``lostConnection(publishWill:)``, as MQTTClient does by itself.
    public func reconnect() {
        guard state.withLock({ $0.started && !$0.connected }) else { return }
        establish()
    }

    /// Runs `job` on the client's queue, counted until done: ``InMemoryBroker/settled()`` waits for it.
    private func run(_ job: @escaping @Sendable () -> Void) {
        broker.started()
        let broker = self.broker
        queue.async {
            job()
            broker.handled()
        }
    }

    /// Called by the broker under its lock (which counted it): the handler runs later, on this
    /// client's queue.
    func enqueue(_ message: ReceivedMessage) {
        let broker = self.broker
        queue.async { [self] in
            if let handler = state.withLock({ $0.onMessage }) {
                var topic = message.topic
                topic.withUTF8 { topicBytes in
                    // NUL-terminated, as libmosquitto lends it.
                    let cString = Array(topicBytes) + [0]
                    cString.withUnsafeBufferPointer { pointer in
                        pointer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: cString.count) { topicPointer in
                            message.payload.withUnsafeBytes { payload in
                                handler(MQTTMessage(topicCString: topicPointer, payload: payload, qos: message.qos, retain: message.retain))
                            }
                        }
                    }
                }
            }
            broker.handled()
        }
    }
}
