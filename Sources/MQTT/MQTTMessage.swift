/// An incoming message, lent by libmosquitto for the duration of the handler call.
///
/// Nothing is copied to build it: `topicCString` and `payload` point into libmosquitto's
/// own buffers, which it frees when the handler returns. Read what you need inside the
/// handler (`payload` directly, or `payloadBytes` / `topic` to keep a copy). It is not
/// `Sendable` on purpose: the pointers must not travel to another thread.
public struct MQTTMessage {
    /// The topic as libmosquitto's NUL-terminated UTF-8 string.
    public let topicCString: UnsafePointer<CChar>
    /// The payload bytes; valid only during the handler call.
    public let payload: UnsafeRawBufferPointer
    public let qos: Int32
    public let retain: Bool

    public init(topicCString: UnsafePointer<CChar>, payload: UnsafeRawBufferPointer, qos: Int32, retain: Bool) {
        self.topicCString = topicCString
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// The topic as a `String` (allocates unless it is 15 bytes or shorter).
    public var topic: String { String(cString: topicCString) }

    /// The topic's UTF-8 bytes without copying, e.g. to pick the device id out of it.
    public func withTopicBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        let length = strlenUTF8(topicCString)
        return try body(UnsafeRawBufferPointer(start: topicCString, count: length))
    }

    /// A copy of the payload that outlives the call.
    public var payloadBytes: [UInt8] { Array(payload) }
}

@available(*, unavailable, message: "MQTTMessage borrows libmosquitto's buffers; copy topic/payloadBytes instead")
extension MQTTMessage: Sendable {}

private func strlenUTF8(_ string: UnsafePointer<CChar>) -> Int {
    var length = 0
    while string[length] != 0 { length += 1 }
    return length
}
