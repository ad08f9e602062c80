/// RFC 3339 times as FleetFence reads and writes them: seconds since the Unix epoch as `Double`.
///
/// Parsing accepts `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` (`T`/`t`/space, `Z`/`z`; any number of fraction
/// digits; second 60 for a leap second). Formatting always writes UTC with milliseconds:
/// `2026-11-22T10:00:05.500Z`. Both work on bytes with calendar arithmetic, not `DateFormatter`.
public enum RFC3339 {
    /// The last instant RFC 3339 can write with a four-digit year: 9999-12-31T23:59:59.999Z.
    public static let maxSeconds: Double = 253_402_300_799.999
    /// 0000-01-01T00:00:00.000Z.
    public static let minSeconds: Double = -62_167_219_200

    // MARK: Parsing

    /// Seconds since the epoch, or `nil` when `text` is not an RFC 3339 date-time.
    public static func parse(_ text: String) -> Double? {
        text.withUTF8Bytes { parse($0) }
    }

    /// Seconds since the epoch, or `nil` when `bytes` (UTF-8) are not an RFC 3339 date-time.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Double? {
        var i = 0
        let n = bytes.count

        // Reads exactly `width` ASCII digits.
        @inline(__always) func digits(_ width: Int) -> Int? {
            guard i + width <= n else { return nil }
            var value = 0
            for k in i..<(i + width) {
                let d = bytes[k] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                value = value * 10 + Int(d)
            }
            i += width
            return value
        }
        @inline(__always) func expect(_ byte: UInt8) -> Bool {
            guard i < n, bytes[i] == byte else { return false }
            i += 1
            return true
        }

        guard let year = digits(4), expect(UInt8(ascii: "-")),
              let month = digits(2), expect(UInt8(ascii: "-")),
              let day = digits(2)
        else { return nil }
        guard i < n, bytes[i] == UInt8(ascii: "T") || bytes[i] == UInt8(ascii: "t") || bytes[i] == UInt8(ascii: " ")
        else { return nil }
        i += 1
        guard let hour = digits(2), expect(UInt8(ascii: ":")),
              let minute = digits(2), expect(UInt8(ascii: ":")),
              let second = digits(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysInMonth(year: year, month: month),
              hour <= 23, minute <= 59, second <= 60
        else { return nil }

        // Fraction: keep 17 digits (far below a double's resolution at today's epoch seconds), skip the rest.
        var fraction = 0.0
        if i < n, bytes[i] == UInt8(ascii: ".") {
            i += 1
            var mantissa: UInt64 = 0
            var kept = 0
            let start = i
            while i < n, bytes[i] &- UInt8(ascii: "0") < 10 {
                if kept < 17 {
                    mantissa = mantissa * 10 + UInt64(bytes[i] &- UInt8(ascii: "0"))
                    kept += 1
                }
                i += 1
            }
            guard i > start else { return nil }
            fraction = Double(mantissa) / powersOfTen[kept]
        }

        var offset = 0
        guard i < n else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let offsetHours = digits(2), expect(UInt8(ascii: ":")), let offsetMinutes = digits(2),
                  offsetHours <= 23, offsetMinutes <= 59
            else { return nil }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        default:
            return nil
        }
        guard i == n else { return nil }

        let days = CivilDate.days(year: year, month: month, day: day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Double(whole) + fraction
    }

    private static let powersOfTen: [Double] = (0...17).map { k in (0..<k).reduce(1.0) { acc, _ in acc * 10 } }

    // MARK: Formatting

    /// `2026-11-22T10:00:05.500Z`: UTC, milliseconds rounded to nearest. Times outside years 0000...9999 are
    /// clamped to that range and NaN is written as the epoch, so the output is always a valid RFC 3339 time.
    public static func format(_ seconds: Double) -> String {
        String(unsafeUninitializedCapacity: formattedLength) { (buffer: UnsafeMutableBufferPointer<UInt8>) in
            write(seconds, to: UnsafeMutableRawBufferPointer(buffer))
            return formattedLength
        }
    }

    /// Appends the formatted time (without quotes) to `bytes`.
    public static func append(_ seconds: Double, to bytes: inout [UInt8]) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: formattedLength))
        bytes.withUnsafeMutableBytes { all in
            write(seconds, to: UnsafeMutableRawBufferPointer(rebasing: all[start...]))
        }
    }

    /// Length of every formatted time.
    public static let formattedLength = 24

    @inline(__always)
    private static func write(_ seconds: Double, to out: UnsafeMutableRawBufferPointer) {
        let minMillis: Int64 = -62_167_219_200_000
        let maxMillis: Int64 = 253_402_300_799_999
        var millis: Int64 = 0
        if seconds.isNaN {
            millis = 0
        } else {
            let scaled = (seconds * 1000).rounded(.toNearestOrAwayFromZero)
            millis = scaled <= Double(minMillis) ? minMillis : scaled >= Double(maxMillis) ? maxMillis : Int64(scaled)
        }
        // Floor division, so that times before 1970 land on the right day.
        var days = millis / 86_400_000
        var ofDay = millis % 86_400_000
        if ofDay < 0 {
            days -= 1
            ofDay += 86_400_000
        }
        let (year, month, day) = CivilDate.date(days: Int(days))
        let ms = Int(ofDay)
        @inline(__always) func put(_ value: Int, at offset: Int, width: Int) {
            var v = value
            for k in stride(from: offset + width - 1, through: offset, by: -1) {
                out[k] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
        }
        put(year, at: 0, width: 4)
        out[4] = UInt8(ascii: "-")
        put(month, at: 5, width: 2)
        out[7] = UInt8(ascii: "-")
        put(day, at: 8, width: 2)
        out[10] = UInt8(ascii: "T")
        put(ms / 3_600_000, at: 11, width: 2)
        out[13] = UInt8(ascii: ":")
        put(ms / 60_000 % 60, at: 14, width: 2)
        out[16] = UInt8(ascii: ":")
        put(ms / 1000 % 60, at: 17, width: 2)
        out[19] = UInt8(ascii: ".")
        put(ms % 1000, at: 20, width: 3)
        out[23] = UInt8(ascii: "Z")
    }
}
