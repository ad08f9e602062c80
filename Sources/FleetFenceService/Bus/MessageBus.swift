import MQTT

/// What the service uses of MQTT, and nothing more: the port its core's edge talks to.
///
/// ``MQTTClient`` (libmosquitto) is the production adapter; `FleetFenceTesting`'s in-memory broker
/// is the other, so that the service's rules, restarts and integrations are tested in the test's
/// process without a broker. Both keep MQTT's promises the service relies on: handlers are called
/// one at a time, in arrival order, on a thread of the bus's own; every (re)connect subscribes again
/// and is told to `onConnectionChange`, then to `onSubscribed` once the subscriptions hold; a QoS 1
/// publish made while disconnected is sent after the reconnect; a filter the broker refuses is
/// listed until a retry is granted.
public protocol MessageBus: AnyObject, Sendable {
    /// Set before `connect`. The message is lent for the duration of the call.
    func onMessage(_ handler: @escaping @Sendable (MQTTMessage) -> Void)
    /// Told `true` on every accepted connection and `false` whenever it ends.
    func onConnectionChange(_ handler: @escaping @Sendable (Bool) -> Void)
    /// Told once per accepted connection, after `onConnectionChange`, when the broker has
    /// acknowledged its subscriptions: what is published to them from then on is heard.
    func onSubscribed(_ handler: @escaping @Sendable () -> Void)
    /// Asks the broker for an answer on the current connection; `onSubscribed` is told again once
    /// it comes. A connection the broker has lost, though not noticed yet, never answers: its loss
    /// is told, and the reconnect's subscriptions tell `onSubscribed`.
    func confirmSubscriptions()
    /// A round trip `confirmSubscriptions` asked is unanswered on the current connection.
    var confirmingSubscriptions: Bool { get }
    /// Subscribes now if connected, and again after every reconnect.
    func subscribe(_ filters: [String], qos: Int32)
    /// Returns once the broker accepted the connection.
    func connect(timeout: Duration) async throws
    /// Never blocks on the network.
    @discardableResult
    func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> MQTTPublishResult
    /// Filters the broker refused, until it grants them.
    var refusedSubscriptions: [String] { get }
    func retryRefusedSubscriptions()
    var isConnected: Bool { get }
    /// How far the broker has acknowledged the QoS 1 publishes, in publish order.
    var publishTickets: PublishTickets { get }
    /// Set before `connect`: told whenever `publishTickets.acknowledgedThrough` moved.
    func onAcknowledged(_ handler: @escaping @Sendable () -> Void)
    /// Waits until every QoS 1 publish is acknowledged; `false` on timeout.
    func waitForPublishes(timeout: Duration) async -> Bool
    /// A clean end: the broker discards the will.
    func disconnect() async
}

/// Makes the bus the service connects with, from the options `serve`'s configuration gives.
public typealias MessageBusFactory = @Sendable (MQTTOptions) throws -> any MessageBus

extension MessageBus {
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int32) -> MQTTPublishResult {
        publish(topic: topic, payload: payload, qos: qos, retain: false)
    }
}

extension MQTTClient: MessageBus {}
