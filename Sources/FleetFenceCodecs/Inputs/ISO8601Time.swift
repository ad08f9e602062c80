/// ISO 8601 times as trackers and their platforms write them, read by putting them in RFC 3339's
/// form: a space or `t` between date and time (`2026-11-27 10:00:00`), no seconds
/// (`2026-11-27T10:00Z`), a decimal comma (`10:00:00,5`), no offset (UTC, as Traccar takes it), an
/// offset without its colon or minutes (`+0100`, `+01`, as Java formatters write them), and the
/// basic format (`20261127T100000Z`).
enum ISO8601Time {
    static func parse(_ text: String) -> Double? {
        if let seconds = RFC3339.parse(text) { return seconds }
        guard let normalized = rfc3339(Array(text.utf8)) else { return nil }
        return normalized.withUnsafeBytes { RFC3339.parse($0) }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// The same time in RFC 3339's form, or nil when it is none of the forms above.
    private static func rfc3339(_ bytes: [UInt8]) -> [UInt8]? {
        var input = bytes[...]
        func digits(_ count: Int) -> ArraySlice<UInt8>? {
            guard input.count >= count, input.prefix(count).allSatisfy(isDigit) else { return nil }
            defer { input = input.dropFirst(count) }
            return input.prefix(count)
        }
        func take(_ byte: Character) -> Bool {
            guard input.first == UInt8(ascii: byte.unicodeScalars.first!) else { return false }
            input = input.dropFirst()
            return true
        }
        // The date: extended (2026-11-27) or basic (20261127), and the time's form follows it.
        guard let year = digits(4) else { return nil }
        let extended = take("-")
        guard let month = digits(2), !extended || take("-"), let day = digits(2) else { return nil }
        guard let separator = input.first, [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")].contains(separator) else {
            return nil
        }
        input = input.dropFirst()
        guard let hour = digits(2), !extended || take(":"), let minute = digits(2) else { return nil }
        var second: ArraySlice<UInt8> = Array("00".utf8)[...]
        if extended ? take(":") : input.first.map(isDigit) == true {
            guard let given = digits(2) else { return nil }
            second = given
        }
        var fraction: [UInt8] = []
        if take(".") || take(",") {
            let count = input.prefix(while: isDigit).count
            guard count > 0 else { return nil }
            fraction = [UInt8(ascii: ".")] + input.prefix(count)
            input = input.dropFirst(count)
        }
        let zone: [UInt8]
        if input.isEmpty {
            zone = Array("Z".utf8)
        } else if take("Z") || take("z") {
            zone = Array("Z".utf8)
        } else if let sign = input.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            input = input.dropFirst()
            guard let zoneHour = digits(2) else { return nil }
            var zoneMinute: ArraySlice<UInt8> = Array("00".utf8)[...]
            if !input.isEmpty {
                _ = take(":")
                guard let given = digits(2) else { return nil }
                zoneMinute = given
            }
            zone = [sign] + zoneHour + [UInt8(ascii: ":")] + zoneMinute
        } else {
            return nil
        }
        guard input.isEmpty else { return nil }
        var result: [UInt8] = Array(year)
        for (mark, part) in [("-", month), ("-", day), ("T", hour), (":", minute), (":", second)] {
            result.append(UInt8(ascii: mark.unicodeScalars.first!))
            result += part
        }
        return result + fraction + zone
    }
}
