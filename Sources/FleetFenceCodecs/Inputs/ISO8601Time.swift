/// ISO 8601 times as trackers write them: RFC 3339, and the offset without its colon
/// (`2026-11-27T10:00:00.000+0000`) that Java formatters produce.
enum ISO8601Time {
    static func parse(_ text: String) -> Double? {
        if let seconds = RFC3339.parse(text) { return seconds }
        // `+HHMM` at the end: put the colon in and read it as RFC 3339.
        let bytes = Array(text.utf8)
        guard bytes.count > 5 else { return nil }
        let sign = bytes[bytes.count - 5]
        guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
            bytes.suffix(4).allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        var fixed = Array(bytes.dropLast(2))
        fixed.append(UInt8(ascii: ":"))
        fixed += bytes.suffix(2)
        return fixed.withUnsafeBytes { RFC3339.parse($0) }
    }
}
