/// What an id that becomes a level of the service's topics may hold (docs/operations.md "Limits and
/// failures"): not `/`, `+` or `#`, and nothing libmosquitto refuses in a topic. It refuses to
/// publish a topic holding a control character (U+0000-U+001F, U+007F-U+009F) or a Unicode
/// non-character (U+FDD0-U+FDEF, U+xFFFE, U+xFFFF): an alert of a device named with a tab, sent
/// over HTTP, was journaled and never published. One rule for device, fence, tour and stop ids.
public enum TopicLevel {
    /// The first character of `id` a topic level cannot hold, or `nil` when it can be one.
    public static func forbidden(in id: String) -> Unicode.Scalar? {
        id.unicodeScalars.first { scalar in
            let value = scalar.value
            return scalar == "/" || scalar == "+" || scalar == "#" || value <= 0x1F || (0x7F...0x9F).contains(value)
                || (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE
        }
    }

    /// Why `id`, an id of `kind` ("device id", "fence id"), cannot be a topic level, or `nil`.
    public static func problem(_ id: String, kind: String) -> String? {
        forbidden(in: id).map { "\(kind) \"\(id)\" contains \(name($0)): it must be one topic level (no /, +, #, NUL or other control character)" }
    }

    /// `scalar` as a reason shows it: itself when printable, else NUL or its code point.
    private static func name(_ scalar: Unicode.Scalar) -> String {
        if scalar == "/" || scalar == "+" || scalar == "#" { return String(scalar) }
        if scalar.value == 0 { return "NUL" }
        return "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
