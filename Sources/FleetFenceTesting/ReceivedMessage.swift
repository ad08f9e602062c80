/// A copy of an incoming message that a test can keep.
public struct ReceivedMessage: Sendable, Hashable, CustomStringConvertible {
    public var topic: String
    public var payload: [UInt8]
    public var qos: Int32
    public var retain: Bool

    public init(topic: String, payload: [UInt8], qos: Int32, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// The payload as UTF-8 text.
    public var text: String { String(decoding: payload, as: UTF8.self) }

    public var description: String { "\(topic) \(retain ? "(retained) " : "")\(text)" }
}
