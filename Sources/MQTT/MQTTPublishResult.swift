/// What `publish` did with a message. `publish` never throws: a producer of positions or
/// alerts decides per message whether a drop matters, and counts it.
public enum MQTTPublishResult: Sendable, Hashable {
    /// Handed to libmosquitto on a live connection (QoS 1: now awaiting its PUBACK), or, in the
    /// moment the connection comes up, waiting to go right behind libmosquitto's resends (`PublishGate`).
    case sent
    /// QoS 1 while disconnected or connecting: held (by libmosquitto, or by the client until the
    /// CONNACK) and sent after reconnecting, in publish order. Do not publish it again, that would
    /// duplicate it.
    case queued
    /// Not accepted; the message is gone.
    case dropped(MQTTDropReason)

    /// `true` for `.sent` and `.queued`.
    public var isAccepted: Bool {
        if case .dropped = self { false } else { true }
    }
}

public enum MQTTDropReason: Sendable, Hashable, CustomStringConvertible {
    /// `maxQueuedPublishes` unacknowledged QoS 1 messages are already held.
    case backlogFull(limit: Int)
    /// QoS 0 while the connection is down or not yet accepted (MQTT has nothing to queue it in).
    case notConnected
    /// The client is not running: before `connect()` or after `disconnect()`.
    case notStarted
    /// libmosquitto rejected it (invalid topic, payload too large, out of memory, ...).
    case rejected(code: Int32, reason: String)

    public var description: String {
        switch self {
        case let .backlogFull(limit): "backlog of \(limit) unacknowledged QoS 1 messages is full"
        case .notConnected: "not connected (QoS 0 is not queued)"
        case .notStarted: "client not started"
        case let .rejected(code, reason): "rejected by libmosquitto: \(reason) (\(code))"
        }
    }
}
