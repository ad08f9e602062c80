/// Why bytes are not JSON: `detail` names the problem and the byte offset where it is, e.g.
/// `unexpected character 'x' at byte 12 (expected ',' or ']')`; `offset` is that offset into the input.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var detail: String
    public var offset: Int

    public init(detail: String, offset: Int) {
        self.detail = detail
        self.offset = offset
    }

    public var description: String { detail }
}

/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// - Any value may stand at the top level; whitespace is space, tab, LF and CR only; nothing but whitespace
///   may follow the value. A leading UTF-8 byte order mark is an error (RFC 8259 §8.1 lets a parser refuse it).
/// - Numbers follow the JSON grammar exactly (no `+1`, `01`, `.5`, `5.`, hex, NaN or Infinity) and become the
///   correctly rounded `Double`; `-0` is -0.0, a number too large for a `Double` is an error, one too small
///   becomes 0.
/// - Strings must be valid UTF-8 without raw control characters; `\u` escapes must pair surrogates.
/// - No trailing commas (which `JSONSerialization` accepts).
/// - At most `maximumDepth` nested arrays and objects. The parser keeps its own stack, not the thread's, so
///   hostile nesting cannot overflow the stack.
///
/// An object keeps its members in document order. A key repeated in one object is an error (docs/topics-and-payloads.md "Fences":
/// two readers of such a payload may each take a different member for it); keys are compared as Swift
/// `String`s, as `JSONObject` looks them up, so two spellings of one key (`"a"`, `"\u0061"`) repeat it.
public enum JSONParser {
    /// The deepest nesting of arrays and objects accepted (`JSONSerialization`'s limit too).
    public static let maximumDepth = 512

    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<JSONValue, JSONSyntaxError> {
        var parser = Parser(bytes)
        do throws(JSONSyntaxError) {
            return .success(try parser.parseDocument())
        } catch {
            return .failure(error)
        }
    }

    public static func parse(_ bytes: [UInt8]) -> Result<JSONValue, JSONSyntaxError> {
        bytes.withUnsafeBytes { parse($0) }
    }

    /// Why `bytes` break RFC 8259's grammar, `nil` when they follow it: `parse` without what it
    /// refuses beyond the grammar (a repeated key, a lone surrogate, a number too large for a
    /// `Double`). An array of payloads refused for what one element says is then still told apart
    /// element by element (`PositionBatchDecoder`).
    public static func grammarError(_ bytes: [UInt8]) -> JSONSyntaxError? {
        bytes.withUnsafeBytes { bytes in
            var parser = Parser(bytes, checksContent: false)
            do throws(JSONSyntaxError) {
                _ = try parser.parseDocument()
                return nil
            } catch {
                return error
            }
        }
    }
}

// MARK: - The parser

/// Recursive descent with an explicit stack: `frames` holds the open arrays and objects, `values` and `keys`
/// the members each of them has so far (innermost last). A container that closes takes its members off the
/// top of those stacks, so every array and object is allocated once, at its final size.
private struct Parser {
    /// Typed rather than raw: AddressSanitizer instruments typed loads. Every read is below `end`, either
    /// checked at the read or through `at(_:)`, which returns 0 past the end (0 is valid nowhere it looks).
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var i = 0
    /// Refuses a repeated key, a lone surrogate and a number too large, which the grammar allows;
    /// without, they read as the keys given, U+FFFD and infinity.
    private let checksContent: Bool

    /// A key of an open object, with what finds a repeated one cheaply.
    private struct Key {
        var name: String
        /// Where its opening quote is, for the error that names it.
        var offset: Int
        /// Its UTF-8 length, first and last byte, compared before the names; `anyKey` for a key with
        /// non-ASCII characters, whose equal strings may be other bytes (`"\u{212A}" == "K"`).
        var print: UInt32
    }

    private static let anyKey = UInt32.max

    private struct Frame {
        var isObject: Bool
        var valueStart: Int
        var keyStart: Int
    }

    private var frames: [Frame] = []
    private var values: [JSONValue] = []
    private var keys: [Key] = []
    /// The `print` of the last string read.
    private var lastStringPrint: UInt32 = 0
    /// The unescaped bytes of a string with escapes.
    private var unescaped: [UInt8] = []

    init(_ bytes: UnsafeRawBufferPointer, checksContent: Bool = true) {
        self.checksContent = checksContent
        // An empty buffer may have no base address; any non-null pointer works, since `end` is 0.
        base = (bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!).assumingMemoryBound(to: UInt8.self)
        end = bytes.count
        values.reserveCapacity(64)
        keys.reserveCapacity(32)
        frames.reserveCapacity(16)
    }

    @inline(__always)
    private func at(_ k: Int) -> UInt8 {
        k < end ? base[k] : 0
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while i < end {
            switch base[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return
            }
        }
    }

    // MARK: Structure

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
        if end >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF {
            throw failure("byte order mark", at: 0, "JSON text must not start with U+FEFF")
        }
        skipWhitespace()
        document: while true {
            // A value starts at `i` (whitespace is skipped).
            var value: JSONValue
            switch at(i) {
            case UInt8(ascii: "{"):
                try checkDepth()
                i += 1
                skipWhitespace()
                if at(i) == UInt8(ascii: "}") {
                    i += 1
                    value = .object(JSONObject())
                } else {
                    frames.append(Frame(isObject: true, valueStart: values.count, keyStart: keys.count))
                    try readKey()
                    continue document
                }
            case UInt8(ascii: "["):
                try checkDepth()
                i += 1
                skipWhitespace()
                if at(i) == UInt8(ascii: "]") {
                    i += 1
                    value = .array([])
                } else {
                    frames.append(Frame(isObject: false, valueStart: values.count, keyStart: keys.count))
                    continue document
                }
            case UInt8(ascii: "\""):
                value = .string(try readString())
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = .number(try readNumber())
            case UInt8(ascii: "t"):
                try readLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try readLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try readLiteral("null")
                value = .null
            default:
                throw unexpected(expected: "a value")
            }

            // `value` is complete: it joins the innermost open container, and each container that ends
            // here closes and joins the one around it.
            while true {
                guard let frame = frames.last else {
                    skipWhitespace()
                    guard i == end else { throw failure("trailing characters", at: i) }
                    return value
                }
                values.append(value)
                skipWhitespace()
                let close = frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                switch at(i) {
                case UInt8(ascii: ","):
                    let comma = i
                    i += 1
                    skipWhitespace()
                    if at(i) == close { throw failure("trailing comma", at: comma, "not allowed in JSON") }
                    if frame.isObject { try readKey() }
                    continue document
                case close:
                    i += 1
                    frames.removeLast()
                    value = frame.isObject ? try closeObject(frame) : closeArray(frame)
                default:
                    throw unexpected(expected: frame.isObject ? "',' or '}'" : "',' or ']'")
                }
            }
        }
    }

    private func checkDepth() throws(JSONSyntaxError) {
        guard frames.count < JSONParser.maximumDepth else {
            throw failure("too deeply nested", at: i, "more than \(JSONParser.maximumDepth) nested arrays and objects")
        }
    }

    /// Reads `"key"`, the colon and the whitespace after it.
    private mutating func readKey() throws(JSONSyntaxError) {
        guard at(i) == UInt8(ascii: "\"") else { throw unexpected(expected: "a string key") }
        let offset = i
        keys.append(Key(name: try readString(), offset: offset, print: lastStringPrint))
        skipWhitespace()
        guard at(i) == UInt8(ascii: ":") else { throw unexpected(expected: "':' after the key") }
        i += 1
        skipWhitespace()
    }

    private mutating func closeArray(_ frame: Frame) -> JSONValue {
        let array = Array(values[frame.valueStart...])
        values.removeSubrange(frame.valueStart...)
        return .array(array)
    }

    private mutating func closeObject(_ frame: Frame) throws(JSONSyntaxError) -> JSONValue {
        let count = keys.count - frame.keyStart
        if checksContent, let repeated = firstRepeatedKey(from: frame.keyStart) {
            let key = keys[repeated]
            throw failure("duplicate key \(Parser.quote(key.name))", at: key.offset, "a key may appear once per object")
        }
        var members: [JSONObject.Member] = []
        members.reserveCapacity(count)
        for k in 0..<count {
            members.append(JSONObject.Member(key: keys[frame.keyStart + k].name, value: values[frame.valueStart + k]))
        }
        keys.removeSubrange(frame.keyStart...)
        values.removeSubrange(frame.valueStart...)
        return .object(JSONObject(storage: members))
    }

    /// The index in `keys` of the first key from `start` on that repeats an earlier one from `start` on.
    /// Pairwise for the handful of keys payloads have, comparing names only where prints match (no hashing,
    /// no allocation); hashed past that, so that a hostile object of many keys costs linear time.
    private func firstRepeatedKey(from start: Int) -> Int? {
        let count = keys.count - start
        if count <= 16 {
            var k = start + 1
            while k < keys.count {
                let print = keys[k].print
                var j = start
                while j < k {
                    let other = keys[j].print
                    let mayEqual = print == other || print == Parser.anyKey || other == Parser.anyKey
                    if mayEqual, keys[j].name == keys[k].name { return k }
                    j += 1
                }
                k += 1
            }
            return nil
        }
        var seen = Set<String>(minimumCapacity: count)
        for k in start..<keys.count where !seen.insert(keys[k].name).inserted { return k }
        return nil
    }

    private mutating func readLiteral(_ word: StaticString) throws(JSONSyntaxError) {
        let letters = word.utf8Start
        for k in 0..<word.utf8CodeUnitCount {
            guard at(i) == letters[k] else { throw unexpected(expected: "'\(word)'") }
            i += 1
        }
    }

    // MARK: Strings

    /// The string whose opening quote is at `i`; `i` ends past the closing quote.
    private mutating func readString() throws(JSONSyntaxError) -> String {
        let open = i
        var k = i + 1
        var seen: UInt64 = 0  // every byte or-ed in: bit 7 set when any is not ASCII
        // Eight bytes at a time while none of them is a quote, a backslash or a control character.
        while k + 8 <= end {
            let word = UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self)
            if Parser.hasQuoteBackslashOrControl(word) { break }
            seen |= word
            k += 8
        }
        while k < end {
            let b = base[k]
            if b == UInt8(ascii: "\"") {
                i = k + 1
                if seen & 0x8080_8080_8080_8080 != 0 {
                    try validateUTF8(from: open + 1, to: k)
                    lastStringPrint = Parser.anyKey
                } else {
                    lastStringPrint = Parser.print(UnsafeBufferPointer(start: base + (open + 1), count: k - (open + 1)))
                }
                return String(decoding: UnsafeBufferPointer(start: base + (open + 1), count: k - (open + 1)), as: UTF8.self)
            }
            if b == UInt8(ascii: "\\") { return try readEscapedString(open: open, escape: k, seen: seen) }
            if b < 0x20 { throw controlCharacter(at: k) }
            seen |= UInt64(b)
            k += 1
        }
        throw failure("unterminated string starting", at: open)
    }

    /// Whether any byte of `word` is `"`, `\` or below 0x20 (exact: no false positives for the whole word).
    @inline(__always)
    private static func hasQuoteBackslashOrControl(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZeroByte(_ x: UInt64) -> Bool { (x &- ones) & ~x & highs != 0 }
        return hasZeroByte(word ^ (ones &* 0x22)) || hasZeroByte(word ^ (ones &* 0x5C))
            || (word &- ones &* 0x20) & ~word & highs != 0
    }

    /// The rest of a string with escapes: the first backslash is at `escape`; `seen` covers the bytes before it.
    private mutating func readEscapedString(open: Int, escape: Int, seen: UInt64) throws(JSONSyntaxError) -> String {
        unescaped.removeAll(keepingCapacity: true)
        var runStart = open + 1
        var runSeen = seen
        var k = escape
        while true {
            // `k` is at a backslash or the closing quote; the raw run before it is copied as it is.
            if runStart < k {
                if runSeen & 0x8080_8080_8080_8080 != 0 { try validateUTF8(from: runStart, to: k) }
                unescaped.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: k - runStart))
            }
            if base[k] == UInt8(ascii: "\"") {
                i = k + 1
                lastStringPrint = unescaped.contains { $0 >= 0x80 } ? Parser.anyKey
                    : unescaped.withUnsafeBufferPointer { Parser.print($0) }
                return String(decoding: unescaped, as: UTF8.self)
            }
            let backslash = k
            k += 1
            guard k < end else { throw failure("unterminated string starting", at: open) }
            switch base[k] {
            case UInt8(ascii: "\""): unescaped.append(0x22)
            case UInt8(ascii: "\\"): unescaped.append(0x5C)
            case UInt8(ascii: "/"): unescaped.append(0x2F)
            case UInt8(ascii: "b"): unescaped.append(0x08)
            case UInt8(ascii: "f"): unescaped.append(0x0C)
            case UInt8(ascii: "n"): unescaped.append(0x0A)
            case UInt8(ascii: "r"): unescaped.append(0x0D)
            case UInt8(ascii: "t"): unescaped.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(at: k + 1, escape: backslash, open: open)
                k += 4
                switch scalar {
                case 0xD800..<0xDC00:
                    guard at(k + 1) == UInt8(ascii: "\\"), at(k + 2) == UInt8(ascii: "u") else {
                        guard !checksContent else { throw failure("invalid \\u escape (lone surrogate)", at: backslash) }
                        scalar = 0xFFFD
                        break
                    }
                    let low = try hex4(at: k + 3, escape: k + 1, open: open)
                    guard (0xDC00..<0xE000).contains(low) else {
                        guard !checksContent else { throw failure("invalid \\u escape (lone surrogate)", at: backslash) }
                        scalar = 0xFFFD  // the escape after it is read as its own
                        break
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    k += 6
                case 0xDC00..<0xE000:
                    guard !checksContent else { throw failure("invalid \\u escape (lone surrogate)", at: backslash) }
                    scalar = 0xFFFD
                default:
                    break
                }
                appendUTF8(scalar)
            default:
                let b = base[k]
                let shown = (0x20...0x7E).contains(b) ? "'\\\(Character(Unicode.Scalar(b)))'" : "'\\' followed by \(Parser.hex(b))"
                throw failure("invalid escape \(shown)", at: backslash)
            }
            k += 1
            // The next raw run, up to a backslash or the closing quote.
            runStart = k
            runSeen = 0
            while true {
                guard k < end else { throw failure("unterminated string starting", at: open) }
                let b = base[k]
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { break }
                if b < 0x20 { throw controlCharacter(at: k) }
                runSeen |= UInt64(b)
                k += 1
            }
        }
    }

    /// The four hex digits of a `\u` escape starting at `start`.
    private func hex4(at start: Int, escape: Int, open: Int) throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for k in start..<start + 4 {
            guard k < end else { throw failure("unterminated string starting", at: open) }
            let b = base[k]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape", at: escape, "expected 4 hex digits")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            unescaped.append(UInt8(scalar))
        case ..<0x800:
            unescaped.append(UInt8(0xC0 | scalar >> 6))
            unescaped.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            unescaped.append(UInt8(0xE0 | scalar >> 12))
            unescaped.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            unescaped.append(UInt8(0x80 | scalar & 0x3F))
        default:
            unescaped.append(UInt8(0xF0 | scalar >> 18))
            unescaped.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            unescaped.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            unescaped.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Well-formed UTF-8 (Unicode table 3-7): no overlong forms, no surrogates, nothing above U+10FFFF.
    private func validateUTF8(from start: Int, to stop: Int) throws(JSONSyntaxError) {
        var k = start
        while k < stop {
            let lead = base[k]
            if lead < 0x80 {
                k += 1
                continue
            }
            let continuations: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: continuations = 1
            case 0xE0: continuations = 2; low = 0xA0
            case 0xED: continuations = 2; high = 0x9F
            case 0xE1...0xEF: continuations = 2
            case 0xF0: continuations = 3; low = 0x90
            case 0xF4: continuations = 3; high = 0x8F
            case 0xF1...0xF3: continuations = 3
            default: throw failure("invalid UTF-8 in string", at: k)
            }
            guard stop - k > continuations, (low...high).contains(base[k + 1]) else {
                throw failure("invalid UTF-8 in string", at: k)
            }
            var j = 2
            while j <= continuations {
                guard base[k + j] & 0xC0 == 0x80 else { throw failure("invalid UTF-8 in string", at: k) }
                j += 1
            }
            k += continuations + 1
        }
    }

    // MARK: Numbers

    /// The number starting at `i`; `i` ends past it.
    ///
    /// Up to 19 significant digits are collected in an integer. When no nonzero digit is beyond them, an
    /// integer is converted directly, and a significand up to 2^53 with a power of ten up to 10^22 is one
    /// correctly rounded multiplication or division of exact operands (Clinger's fast path). Anything else goes
    /// to the standard library's correctly rounded `Double(String)`.
    private mutating func readNumber() throws(JSONSyntaxError) -> Double {
        let start = i
        var k = i
        let negative = base[k] == UInt8(ascii: "-")
        if negative { k += 1 }

        var significand: UInt64 = 0
        var digits = 0  // significant digits in `significand`
        var exponent = 0  // the power of ten of the significand's last digit
        var dropped = false  // a nonzero digit did not fit in the significand

        var d = at(k) &- UInt8(ascii: "0")
        guard d < 10 else { throw failure("invalid number", at: start, "expected a digit at byte \(k)") }
        if d == 0 {
            k += 1
            if at(k) &- UInt8(ascii: "0") < 10 { throw failure("invalid number", at: start, "leading zero") }
        } else {
            repeat {
                if digits < 19 {
                    significand = significand &* 10 &+ UInt64(d)
                    digits += 1
                } else {
                    exponent += 1
                    if d != 0 { dropped = true }
                }
                k += 1
                d = at(k) &- UInt8(ascii: "0")
            } while d < 10
        }

        if at(k) == UInt8(ascii: ".") {
            k += 1
            d = at(k) &- UInt8(ascii: "0")
            guard d < 10 else { throw failure("invalid number", at: start, "expected a digit after '.' at byte \(k)") }
            repeat {
                if significand == 0 && d == 0 {
                    exponent -= 1
                } else if digits < 19 {
                    significand = significand &* 10 &+ UInt64(d)
                    digits += 1
                    exponent -= 1
                } else if d != 0 {
                    dropped = true
                }
                k += 1
                d = at(k) &- UInt8(ascii: "0")
            } while d < 10
        }

        if at(k) | 0x20 == UInt8(ascii: "e") {
            k += 1
            var exponentNegative = false
            if at(k) == UInt8(ascii: "+") || at(k) == UInt8(ascii: "-") {
                exponentNegative = at(k) == UInt8(ascii: "-")
                k += 1
            }
            d = at(k) &- UInt8(ascii: "0")
            guard d < 10 else { throw failure("invalid number", at: start, "expected a digit in the exponent at byte \(k)") }
            var written = 0
            repeat {
                if written < 100_000_000 { written = written * 10 + Int(d) }
                k += 1
                d = at(k) &- UInt8(ascii: "0")
            } while d < 10
            exponent += exponentNegative ? -written : written
        }
        i = k

        if significand == 0 { return negative ? -0.0 : 0.0 }
        if !dropped, let magnitude = Parser.exactValue(significand, exponent) {
            return negative ? -magnitude : magnitude
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: k - start), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            guard !checksContent else { throw failure("number out of range", at: start, "too large for a Double") }
            return negative ? -.infinity : .infinity
        }
        return value
    }

    /// `significand` × 10^`exponent` when it is computed with one rounding, else `nil`.
    @inline(__always)
    private static func exactValue(_ significand: UInt64, _ exponent: Int) -> Double? {
        if exponent == 0 { return Double(significand) }  // an integer conversion rounds correctly
        let exact: UInt64 = 1 << 53
        guard significand <= exact else { return nil }
        switch exponent {
        case -22..<0:
            return Double(significand) / PowerOfTen.exact(-exponent)
        case 1...22:
            return Double(significand) * PowerOfTen.exact(exponent)
        case 23...(22 + 15):
            // 123e30: move some of the power into the significand while it stays exact.
            var scaled = significand
            for _ in 0..<(exponent - 22) {
                scaled &*= 10
                if scaled > exact { return nil }
            }
            return Double(scaled) * 1e22
        default:
            return nil
        }
    }

    // MARK: Errors

    /// `"<what> at byte <offset>"`, with an optional note in parentheses.
    private func failure(_ what: String, at offset: Int, _ note: String? = nil) -> JSONSyntaxError {
        JSONSyntaxError(detail: "\(what) at byte \(offset)" + (note.map { " (\($0))" } ?? ""), offset: offset)
    }

    /// The byte at `i` is not what the grammar allows there (or the input ended).
    private func unexpected(expected: String) -> JSONSyntaxError {
        guard i < end else { return failure("unexpected end of input", at: i, "expected \(expected)") }
        return failure("unexpected character \(Parser.show(base[i]))", at: i, "expected \(expected)")
    }

    private func controlCharacter(at k: Int) -> JSONSyntaxError {
        failure("control character in string", at: k, "\(Parser.hex(base[k])) must be written as an escape")
    }

    /// A `Key.print` of ASCII bytes.
    @inline(__always)
    private static func print(_ ascii: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard let first = ascii.first, let last = ascii.last else { return 0 }
        return UInt32(truncatingIfNeeded: ascii.count & 0x7FFF) << 16 | UInt32(first) << 8 | UInt32(last)
    }

    /// `"key"` for an error message: escaped as Swift would, at most 40 characters of it.
    private static func quote(_ key: String) -> String {
        let shown = key.count > 40 ? String(key.prefix(40)) + "…" : key
        return "\"" + shown.unicodeScalars.map { $0.escaped(asASCII: false) }.joined() + "\""
    }

    /// `'x'` for printable ASCII, `0xNN` for anything else.
    private static func show(_ b: UInt8) -> String {
        (0x21...0x7E).contains(b) ? "'\(Character(Unicode.Scalar(b)))'" : hex(b)
    }

    private static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return "0x" + String(decoding: [digits[Int(b >> 4)], digits[Int(b & 0xF)]], as: UTF8.self)
    }
}
