/// JSON string escaping. Only what RFC 8259 requires is escaped (`"`, `\` and U+0000...U+001F, using the
/// short forms where they exist); everything else, non-ASCII included, is copied as it is, in bulk.
extension JSONWriter {
    /// Appends `text` as a quoted JSON string.
    static func appendQuoted(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        text.withUTF8Bytes { appendEscaped($0, to: &bytes) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends the escaped form of `utf8`, which must be valid UTF-8 (every `String` is), without quotes.
    static func appendEscaped(_ utf8: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        var runStart = 0
        for (i, b) in utf8.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
            if runStart < i { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart..<i])) }
            runStart = i + 1
            bytes.append(UInt8(ascii: "\\"))
            switch b {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            default:
                let hex: StaticString = "0123456789abcdef"
                bytes.append(contentsOf: [
                    UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    hex.utf8Start[Int(b >> 4)], hex.utf8Start[Int(b & 0xF)],
                ])
            }
        }
        if runStart < utf8.count { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: utf8[runStart...])) }
    }
}
