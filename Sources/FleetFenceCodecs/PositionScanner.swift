/// The fast path of position decoding: one pass over a flat JSON object, no allocation, no `String` for keys.
///
/// It only decides what it is sure `JSONParser` would decide the same way, and gives up
/// (`scan` returns `false`) on everything else: escapes or non-ASCII in strings, numbers longer than
/// 17 characters, numbers that are not finite as `Double`, trailing commas, deep nesting, an object
/// with a repeated key or with more than 32 keys, any syntax error. The caller then asks the
/// reference parser, so an input can never get a different answer from the two. Reads go through `at(_:)`, which returns 0
/// past the end; 0 is never valid where the scanner looks, so running off the end is always a give-up.
struct PositionScanner {
    /// Typed rather than raw: AddressSanitizer instruments typed loads, so the fuzz tests can prove the bounds.
    private let base: UnsafePointer<UInt8>
    private let end: Int

    private init(_ payload: UnsafeRawBufferPointer) {
        // An empty buffer may have no base address; any non-null pointer works, since `end` is 0.
        base = (payload.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!).assumingMemoryBound(to: UInt8.self)
        end = payload.count
    }

    /// Fills `fields` from `payload`, or returns `false` when the reference parser must decide.
    @inline(__always)
    static func scan(_ payload: UnsafeRawBufferPointer, into fields: inout PositionFields<UnsafeRawBufferPointer>) -> Bool {
        PositionScanner(payload).scanObject(into: &fields)
    }

    // MARK: Bytes

    @inline(__always)
    private func at(_ i: Int) -> UInt8 {
        i < end ? base[i] : 0
    }

    @inline(__always)
    private func skipWhitespace(_ i: Int) -> Int {
        var i = i
        while true {
            switch at(i) {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            default: return i
            }
        }
    }

    // MARK: Object

    private func scanObject(into fields: inout PositionFields<UnsafeRawBufferPointer>) -> Bool {
        var i = skipWhitespace(0)
        guard at(i) == UInt8(ascii: "{") else { return false }
        i = skipWhitespace(i + 1)
        if at(i) == UInt8(ascii: "}") {
            return skipWhitespace(i + 1) == end
        }
        return KeyLog.with { keys in scanMembers(from: i, keys: &keys, into: &fields) }
    }

    /// The members of the payload's object, the first key at `start`.
    @inline(__always)
    private func scanMembers(from start: Int, keys: inout KeyLog, into fields: inout PositionFields<UnsafeRawBufferPointer>) -> Bool {
        var i = start
        while true {
            guard at(i) == UInt8(ascii: "\""), let keyEnd = stringEnd(from: i + 1),
                  keys.add(start: i + 1, count: keyEnd - (i + 1), in: base)
            else { return false }
            let key = PositionScanner.key(base + (i + 1), count: keyEnd - (i + 1))
            i = skipWhitespace(keyEnd + 1)
            guard at(i) == UInt8(ascii: ":") else { return false }
            i = skipWhitespace(i + 1)
            guard let (value, next) = self.value(at: i, depth: 0) else { return false }
            if let key { fields[key] = value }
            i = skipWhitespace(next)
            switch at(i) {
            case UInt8(ascii: ","):
                // A trailing comma: the reference parser says why it is refused.
                i = skipWhitespace(i + 1)
            case UInt8(ascii: "}"):
                return skipWhitespace(i + 1) == end
            default:
                return false
            }
        }
    }

    /// The index of the closing quote of a string whose content starts at `start`, or `nil` when the string
    /// is unterminated or has anything but printable ASCII without escapes.
    @inline(__always)
    private func stringEnd(from start: Int) -> Int? {
        var i = start
        while true {
            let b = at(i)
            if b == UInt8(ascii: "\"") { return i }
            // Control characters (and the 0 past the end), backslash, and non-ASCII go to the reference parser.
            if b < 0x20 || b == UInt8(ascii: "\\") || b >= 0x80 { return nil }
            i += 1
        }
    }

    // MARK: Values

    /// The value starting at `i` and the index just past it.
    private func value(at i: Int, depth: Int) -> (RawValue<UnsafeRawBufferPointer>, Int)? {
        switch at(i) {
        case UInt8(ascii: "\""):
            guard let close = stringEnd(from: i + 1) else { return nil }
            return (.string(UnsafeRawBufferPointer(start: UnsafeRawPointer(base + (i + 1)), count: close - (i + 1))), close + 1)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            guard let (number, next) = number(at: i) else { return nil }
            return (.number(number), next)
        case UInt8(ascii: "t"):
            guard literal(at: i, "true") else { return nil }
            return (.other(.bool), i + 4)
        case UInt8(ascii: "f"):
            guard literal(at: i, "false") else { return nil }
            return (.other(.bool), i + 5)
        case UInt8(ascii: "n"):
            guard literal(at: i, "null") else { return nil }
            return (.null, i + 4)
        case UInt8(ascii: "["):
            guard let next = skipArray(at: i, depth: depth + 1) else { return nil }
            return (.other(.array), next)
        case UInt8(ascii: "{"):
            guard let next = skipObject(at: i, depth: depth + 1) else { return nil }
            return (.other(.object), next)
        default:
            return nil
        }
    }

    @inline(__always)
    private func literal(at i: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard i + count <= end else { return false }
        for k in 0..<count where at(i + k) != word.utf8Start[k] { return false }
        return true
    }

    /// Nesting the scanner follows before it leaves the payload to the parser (whose limit is 512).
    private static let maxDepth = 32

    private func skipArray(at start: Int, depth: Int) -> Int? {
        guard depth <= PositionScanner.maxDepth else { return nil }
        var i = skipWhitespace(start + 1)
        if at(i) == UInt8(ascii: "]") { return i + 1 }
        while true {
            guard let (_, next) = value(at: i, depth: depth) else { return nil }
            i = skipWhitespace(next)
            switch at(i) {
            case UInt8(ascii: ","): i = skipWhitespace(i + 1)
            case UInt8(ascii: "]"): return i + 1
            default: return nil
            }
        }
    }

    private func skipObject(at start: Int, depth: Int) -> Int? {
        guard depth <= PositionScanner.maxDepth else { return nil }
        let i = skipWhitespace(start + 1)
        if at(i) == UInt8(ascii: "}") { return i + 1 }
        return KeyLog.with { keys in skipMembers(from: i, depth: depth, keys: &keys) }
    }

    /// The members of a nested object, the first key at `start`; the index past its `}`.
    private func skipMembers(from start: Int, depth: Int, keys: inout KeyLog) -> Int? {
        var i = start
        while true {
            guard at(i) == UInt8(ascii: "\""), let keyEnd = stringEnd(from: i + 1),
                  keys.add(start: i + 1, count: keyEnd - (i + 1), in: base)
            else { return nil }
            i = skipWhitespace(keyEnd + 1)
            guard at(i) == UInt8(ascii: ":") else { return nil }
            guard let (_, next) = value(at: skipWhitespace(i + 1), depth: depth) else { return nil }
            i = skipWhitespace(next)
            switch at(i) {
            case UInt8(ascii: ","): i = skipWhitespace(i + 1)
            case UInt8(ascii: "}"): return i + 1
            default: return nil
            }
        }
    }

    // MARK: Numbers

    /// A JSON number, correctly rounded as `JSONParser` reads it, and the index past it.
    ///
    /// Integers up to 2^53 are exact; other tokens whose digits fit in 2^53 with a power of ten up to
    /// 10^22 are one correctly rounded multiplication or division of exact operands; the rest (17
    /// significant digits, as some phones send coordinates, or more) go through `Double(String)`,
    /// which is correctly rounded too.
    @inline(__always)
    private func number(at start: Int) -> (Double, Int)? {
        var i = start
        let negative = at(i) == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa: UInt64 = 0
        // Past 19 digits the mantissa has wrapped: only the text path can read the token.
        var digits = 0
        var isInteger = true
        var fractionDigits = 0

        let first = at(i) &- UInt8(ascii: "0")
        guard first < 10 else { return nil }
        if first == 0 {
            i += 1
            // A leading zero followed by a digit is not JSON.
            guard at(i) &- UInt8(ascii: "0") >= 10 else { return nil }
        } else {
            while case let d = at(i) &- UInt8(ascii: "0"), d < 10 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                digits += 1
                i += 1
            }
        }
        if at(i) == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard at(i) &- UInt8(ascii: "0") < 10 else { return nil }
            while case let d = at(i) &- UInt8(ascii: "0"), d < 10 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                digits += 1
                fractionDigits += 1
                i += 1
            }
        }
        var exponent = 0
        if at(i) | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            i += 1
            var exponentNegative = false
            if at(i) == UInt8(ascii: "+") || at(i) == UInt8(ascii: "-") {
                exponentNegative = at(i) == UInt8(ascii: "-")
                i += 1
            }
            guard at(i) &- UInt8(ascii: "0") < 10 else { return nil }
            while case let d = at(i) &- UInt8(ascii: "0"), d < 10 {
                if exponent < 100_000 { exponent = exponent * 10 + Int(d) }
                i += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        // A number ends only at whitespace, ',', ']' or '}'; anything else is a syntax error.
        switch at(i) {
        case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"): break
        default: return nil
        }
        let exact: UInt64 = 1 << 53
        let mantissaIsExact = digits <= 19 && mantissa <= exact
        if isInteger, mantissaIsExact {
            return (negative ? -Double(mantissa) : Double(mantissa), i)
        }
        let power = exponent - fractionDigits
        if mantissaIsExact, power >= -22, power <= 22 {
            let magnitude = power >= 0
                ? Double(mantissa) * PowerOfTen.exact(power)
                : Double(mantissa) / PowerOfTen.exact(-power)
            return (negative ? -magnitude : magnitude, i)
        }
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
        // The reference parser rejects a token that does not fit a finite Double: give up to it.
        guard let value = Double(text), value.isFinite else { return nil }
        return (value, i)
    }

    // MARK: Keys

    /// The known key spelled by `count` bytes at `p`, without making a `String`.
    @inline(__always)
    private static func key(_ p: UnsafePointer<UInt8>, count: Int) -> PositionKey? {
        @inline(__always) func byte(_ k: Int) -> UInt8 { p[k] }
        @inline(__always) func equals(_ word: StaticString) -> Bool {
            for k in 0..<count where byte(k) != word.utf8Start[k] { return false }
            return true
        }
        switch count {
        case 2:
            switch (byte(0), byte(1)) {
            case (UInt8(ascii: "t"), UInt8(ascii: "s")): return .ts
            case (UInt8(ascii: "i"), UInt8(ascii: "d")): return .id
            default: return nil
            }
        case 3:
            switch (byte(0), byte(1), byte(2)) {
            case (UInt8(ascii: "l"), UInt8(ascii: "a"), UInt8(ascii: "t")): return .lat
            case (UInt8(ascii: "l"), UInt8(ascii: "o"), UInt8(ascii: "n")): return .lon
            case (UInt8(ascii: "a"), UInt8(ascii: "c"), UInt8(ascii: "c")): return .acc
            case (UInt8(ascii: "s"), UInt8(ascii: "p"), UInt8(ascii: "d")): return .spd
            case (UInt8(ascii: "h"), UInt8(ascii: "d"), UInt8(ascii: "g")): return .hdg
            case (UInt8(ascii: "t"), UInt8(ascii: "s"), UInt8(ascii: "t")): return .tst
            case (UInt8(ascii: "v"), UInt8(ascii: "e"), UInt8(ascii: "l")): return .vel
            case (UInt8(ascii: "c"), UInt8(ascii: "o"), UInt8(ascii: "g")): return .cog
            default: return nil
            }
        case 5: return equals("_type") ? .type : nil
        case 8: return equals("latitude") ? .latitude : nil
        case 9: return equals("longitude") ? .longitude : nil
        case 12: return equals("gps_accuracy") ? .gpsAccuracy : nil
        default: return nil
        }
    }
}

/// The keys of one object so far, to give up on a repeated one: the parser refuses it (docs/topics-and-payloads.md "Fences").
/// The scanner's keys are printable ASCII without escapes, so equal keys are equal bytes. Up to 32 keys fit
/// in `spans`, stack memory of the caller's; an object with more goes to the parser.
private struct KeyLog {
    static let capacity = 32
    /// Each key as its length, first and last byte (high 32 bits), compared before any byte, and its start
    /// (low 32 bits; payloads are at most `PositionDecoder.maxPayloadBytes`).
    private let spans: UnsafeMutablePointer<UInt64>
    private var count = 0
    /// One bit per key, chosen by its high word: a key whose bit is clear repeats none.
    private var seen: UInt64 = 0

    /// Runs `body` with an empty log.
    @inline(__always)
    static func with<R>(_ body: (inout KeyLog) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: capacity) { buffer in
            var log = KeyLog(spans: buffer.baseAddress!)
            return body(&log)
        }
    }

    private init(spans: UnsafeMutablePointer<UInt64>) {
        self.spans = spans
    }

    /// Records the key of `length` bytes at `start`; `false` when it repeats an earlier key or is the 33rd.
    @inline(__always)
    mutating func add(start: Int, count length: Int, in base: UnsafePointer<UInt8>) -> Bool {
        guard count < KeyLog.capacity else { return false }
        let print = length == 0 ? 0 : UInt64(length) << 16 | UInt64(base[start]) << 8 | UInt64(base[start + length - 1])
        let bit: UInt64 = 1 << ((print &* 0x9E37_79B9_7F4A_7C15) >> 58)
        if seen & bit != 0 {
            for k in 0..<count where spans[k] >> 32 == print {
                if KeyLog.equal(base + Int(spans[k] & 0xFFFF_FFFF), base + start, length) { return false }
            }
        }
        seen |= bit
        spans[count] = print << 32 | UInt64(start)
        count += 1
        return true
    }

    @inline(__always)
    private static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        for k in 0..<length where a[k] != b[k] { return false }
        return true
    }
}
