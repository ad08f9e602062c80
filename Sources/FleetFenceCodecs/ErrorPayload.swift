/// The answer to a rejected message, on `<prefix>/errors/<device>` (or `.../errors/fences`):
/// `{"error": reason, "topic": the message's topic, "payload": its first 200 bytes}`.
///
/// The payload is shown as text: invalid UTF-8 becomes U+FFFD, a character cut by the 200-byte limit is
/// dropped rather than shown as U+FFFD, and everything is escaped, so the answer is valid JSON whatever
/// was sent.
public enum ErrorPayload {
    /// How much of the rejected payload is echoed back.
    public static let payloadPrefixBytes = 200

    public static func encode(reason: String, topic: String, payload: UnsafeRawBufferPointer) -> [UInt8] {
        var json = JSONWriter(capacity: 128 + reason.utf8.count + topic.utf8.count + 2 * payloadPrefixBytes)
        json.beginObject()
        json.key("error")
        json.string(reason)
        json.key("topic")
        json.string(topic)
        json.key("payload")
        json.string(printablePrefix(of: payload))
        json.endObject()
        return json.bytes
    }

    public static func encode(reason: String, topic: String, payload: [UInt8]) -> [UInt8] {
        payload.withUnsafeBytes { encode(reason: reason, topic: topic, payload: $0) }
    }

    /// The first `payloadPrefixBytes` bytes as a string, repaired.
    static func printablePrefix(of payload: UnsafeRawBufferPointer) -> String {
        guard payload.count > payloadPrefixBytes else { return String(decoding: payload, as: UTF8.self) }
        var cut = payloadPrefixBytes
        // Step back over continuation bytes to the lead byte of the last sequence; drop it if it is incomplete.
        var lead = cut - 1
        while lead > cut - 4, lead > 0, payload[lead] & 0xC0 == 0x80 { lead -= 1 }
        let needed = switch payload[lead] {
        case 0xC0...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF7: 4
        default: 1
        }
        if lead + needed > cut { cut = lead }
        return String(decoding: UnsafeRawBufferPointer(rebasing: payload[..<cut]), as: UTF8.self)
    }
}
