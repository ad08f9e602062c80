/// The last will: published by the broker when the client vanishes without a clean
/// DISCONNECT (crash, network loss, keep-alive expiry).
public struct MQTTWill: Sendable, Hashable {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int32
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: Int32 = 1, retain: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    public init(topic: String, payload: String, qos: Int32 = 1, retain: Bool = true) {
        self.init(topic: topic, payload: Array(payload.utf8), qos: qos, retain: retain)
    }
}
