import Logging

/// An MQTT 3.1.1 client over libmosquitto, with one dedicated network thread.
///
/// The thread runs libmosquitto's read and write calls and reconnects with exponential backoff
/// (`reconnectDelay` ... `reconnectDelayMax`) whenever the connection drops; every
/// (re)connect subscribes again to the filters given to `subscribe`.
///
/// Threads: `onMessage` and `onConnectionChange` handlers run on the network thread, one
/// call at a time, in arrival order. While a handler runs, no other message is read, so
/// keep it short or hand work off. `publish`, `subscribe` and the rest may be called from
/// any thread, including from inside a handler. How the hand-off to the network thread
/// stays correct and cheap is explained on `LoopContext`.
///
/// Lifetime: call `disconnect()` for a clean end (the broker discards the will). Dropping
/// the last reference without it stops the thread and closes the socket without
/// DISCONNECT, like a crash: the broker publishes the will.
public final class MQTTClient: Sendable {
    private let engine: ClientEngine

    /// Creates the libmosquitto client; no network activity until `connect`.
    /// Throws `MQTTError.invalidOptions` for inconsistent options or an unreadable CA file.
    public init(options: MQTTOptions, logger: Logger = Logger(label: "fleetfence.mqtt")) throws {
        engine = try ClientEngine(options: options, logger: logger)
    }

    deinit {
        engine.stopAbruptly()
    }

    public var options: MQTTOptions { engine.options }

    /// Sets the message handler. Set it before `connect`; a change takes effect at the
    /// next `connect`. `MQTTMessage` is valid only during the call.
    public func onMessage(_ handler: @escaping @Sendable (MQTTMessage) -> Void) {
        engine.handlers.withLock { $0.onMessage = handler }
    }

    /// Sets the handler told `true` on every accepted CONNACK and `false` whenever the
    /// connection ends. Set it before `connect`, as `onMessage`.
    public func onConnectionChange(_ handler: @escaping @Sendable (Bool) -> Void) {
        engine.handlers.withLock { $0.onConnectionChange = handler }
    }

    /// Sets the handler told, on the network thread, once per accepted connection when the broker
    /// has acknowledged every SUBSCRIBE and UNSUBSCRIBE sent since (at once when there are none):
    /// from then on a message published to a subscribed topic is heard. Between the CONNACK and
    /// that point a broker that lost the session drops it. Set it before `connect`, as `onMessage`.
    public func onSubscribed(_ handler: @escaping @Sendable () -> Void) {
        engine.handlers.withLock { $0.onSubscribed = handler }
    }

    /// Sets the handler told, on the network thread, whenever the broker's acknowledgements
    /// moved `publishTickets.acknowledgedThrough`. Set it before `connect`, as `onMessage`.
    public func onAcknowledged(_ handler: @escaping @Sendable () -> Void) {
        engine.handlers.withLock { $0.onAcknowledged = handler }
    }

    /// Subscribes now if connected, and again after every reconnect. Calling it again for
    /// a filter changes its QoS. Invalid filters are logged and ignored.
    public func subscribe(_ filters: [String], qos: Int32) {
        engine.subscribe(filters, qos: qos)
    }

    /// Forgets filters and unsubscribes them if connected.
    public func unsubscribe(_ filters: [String]) {
        engine.unsubscribe(filters)
    }

    /// Starts the network thread and returns once the broker accepted the connection.
    ///
    /// Throws `MQTTError`: `.refused` (CONNACK refusal, e.g. bad credentials),
    /// `.unreachable` (DNS, nothing listening), `.tls`, `.timedOut`, `.cancelled`,
    /// `.alreadyStarted`. After a failure nothing keeps running and `connect` may be
    /// called again; reconnecting with backoff only happens once a connection was up.
    public func connect(timeout: Duration = .seconds(10)) async throws {
        try await engine.connect(timeout: timeout)
    }

    /// Publishes. Never blocks on the network: the packet is queued and the network
    /// thread writes it.
    ///
    /// - QoS 0: `.sent`, or `.dropped(.notConnected)` while the connection is down (until its
    ///   CONNACK).
    /// - QoS 1/2: `.sent`; `.queued` while the connection is down (sent after the reconnect,
    ///   behind what was queued before it — never publish it again); `.dropped(.backlogFull)`
    ///   once `maxQueuedPublishes` are unacknowledged.
    /// - Before `connect` or after `disconnect`: `.dropped(.notStarted)`.
    @discardableResult
    public func publish(topic: String, payload: UnsafeRawBufferPointer, qos: Int32, retain: Bool = false) -> MQTTPublishResult {
        engine.publish(topic: topic, payload: payload, qos: qos, retain: retain)
    }

    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool = false) -> MQTTPublishResult {
        payload.withUnsafeBytes { engine.publish(topic: topic, payload: $0, qos: qos, retain: retain) }
    }

    @discardableResult
    public func publish(topic: String, payload: String, qos: Int32, retain: Bool = false) -> MQTTPublishResult {
        var payload = payload
        return payload.withUTF8 { engine.publish(topic: topic, payload: UnsafeRawBufferPointer($0), qos: qos, retain: retain) }
    }

    /// Filters the broker refused to subscribe (SUBACK 0x80), until it grants them.
    public var refusedSubscriptions: [String] { engine.refusedSubscriptions }

    /// Subscribes again to the filters the broker refused.
    public func retryRefusedSubscriptions() {
        engine.retryRefusedSubscriptions()
    }

    /// QoS 1 publishes accepted but not yet acknowledged by the broker.
    public var unacknowledgedPublishes: Int { engine.unacknowledgedPublishes }

    /// How far the broker has acknowledged the QoS 1 publishes, in publish order.
    public var publishTickets: PublishTickets { engine.publishTickets }

    /// Waits until every QoS 1 publish has been acknowledged; `false` on timeout.
    /// Call it before `disconnect()` at a clean shutdown.
    public func waitForPublishes(timeout: Duration) async -> Bool {
        await poll(timeout: timeout) { engine.unacknowledgedPublishes == 0 }
    }

    /// Waits until ``subscriptionsSettled``; `false` on timeout. Useful before publishing what a
    /// subscription must (not) see.
    public func waitForSubscriptions(timeout: Duration) async -> Bool {
        await poll(timeout: timeout) { engine.subscriptionsSettled }
    }

    /// Connected, and every SUBSCRIBE / UNSUBSCRIBE sent has been acknowledged.
    public var subscriptionsSettled: Bool { engine.subscriptionsSettled }

    /// Asks the broker for an answer on this connection, so that `onSubscribed` is told again once
    /// it comes: proof that the connection is the broker's current one and its subscriptions hold.
    /// A connection the broker has lost never answers; the loss is noticed and the reconnect's own
    /// SUBACKs tell it instead. Nothing is sent while disconnected.
    public func confirmSubscriptions() {
        engine.confirmSubscriptions()
    }

    /// The round trip ``confirmSubscriptions()`` asked is unanswered on the current connection.
    public var confirmingSubscriptions: Bool { engine.subscriptions.withLock { $0.roundTrip != nil } }

    /// Sends DISCONNECT (so no will is published), stops and joins the network thread.
    /// Unacknowledged QoS 1 publishes stay unsent: `waitForPublishes` first.
    /// Idempotent; `connect` may be called again afterwards.
    public func disconnect() async {
        await engine.disconnect()
    }

    /// Turns of the network thread so far (each a `poll`).
    var networkTurns: Int { engine.turns.load(ordering: .relaxed) }

    /// `true` between an accepted CONNACK and the loss or end of that connection.
    public var isConnected: Bool {
        engine.connected.load(ordering: .acquiring)
    }

    private func poll(timeout: Duration, until condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            do { try await Task.sleep(for: .milliseconds(5)) } catch { return condition() }
        }
        return true
    }
}
