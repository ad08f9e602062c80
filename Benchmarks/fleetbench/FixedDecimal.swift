/// Appends a number with a fixed count of decimals, without Foundation's formatter (a million
/// payloads have to be written in well under a second).
enum FixedDecimal {
    private static let scales: [UInt64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000]

    static func append(_ value: Double, decimals: Int, to bytes: inout [UInt8]) {
        let scale = scales[decimals]
        let scaled = UInt64((abs(value) * Double(scale)).rounded())
        if value < 0, scaled > 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(scaled / scale, minimumWidth: 1, to: &bytes)
        if decimals > 0 {
            bytes.append(UInt8(ascii: "."))
            appendDigits(scaled % scale, minimumWidth: decimals, to: &bytes)
        }
    }

    static func appendDigits(_ value: UInt64, minimumWidth: Int, to bytes: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0 || count < minimumWidth
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }
}
