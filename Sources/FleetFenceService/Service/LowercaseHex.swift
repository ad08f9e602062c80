/// Bytes as lowercase hex, two digits each: how the service writes a digest (a webhook's
/// signature, the fences file's SHA-256 in the journal).
extension Sequence<UInt8> {
    var lowercaseHex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
