/// Compact JSON into a byte array, with commas placed by the writer. Every payload FleetFence writes goes
/// through this one type, so escaping and number formatting are the same everywhere.
///
/// Numbers: an integral value below 2^53 prints as an integer (`200`, not `200.0`); any other finite value
/// prints as Swift's shortest text that reads back to the same `Double` (`49.2931`, `1e-05`); NaN and
/// infinities, which JSON cannot carry, print as `null`.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8]
    /// Bit d set: the container open at depth d already has an element (the next one needs a comma).
    private var hasElement: UInt64 = 0
    /// Bit d set: the container open at depth d is an object (it takes keys).
    private var isObject: UInt64 = 0
    private var depth = 0
    /// A key was just written: the next value belongs to it and takes no comma.
    private var afterKey = false

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: Containers

    public mutating func beginObject() {
        beforeValue()
        bytes.append(UInt8(ascii: "{"))
        open(object: true)
    }

    public mutating func endObject() {
        close(object: true)
        bytes.append(UInt8(ascii: "}"))
    }

    public mutating func beginArray() {
        beforeValue()
        bytes.append(UInt8(ascii: "["))
        open(object: false)
    }

    public mutating func endArray() {
        close(object: false)
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes `"name":`; the next value written is its value.
    public mutating func key(_ name: String) {
        precondition(depth > 0 && isObject & currentBit != 0 && !afterKey, "JSONWriter: a key outside an object, or two keys in a row")
        comma()
        JSONWriter.appendQuoted(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        afterKey = true
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        beforeValue()
        JSONWriter.appendQuoted(value, to: &bytes)
    }

    public mutating func number(_ value: Double) {
        beforeValue()
        JSONWriter.appendNumber(value, to: &bytes)
    }

    public mutating func integer(_ value: Int64) {
        beforeValue()
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            JSONWriter.appendDigits(value.magnitude, to: &bytes)
        } else {
            JSONWriter.appendDigits(UInt64(value), to: &bytes)
        }
    }

    public mutating func integer(_ value: UInt64) {
        beforeValue()
        JSONWriter.appendDigits(value, to: &bytes)
    }

    public mutating func bool(_ value: Bool) {
        beforeValue()
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    public mutating func null() {
        beforeValue()
        bytes.append(contentsOf: "null".utf8)
    }

    /// An RFC 3339 UTC time with milliseconds, as a string.
    public mutating func time(_ seconds: Double) {
        beforeValue()
        bytes.append(UInt8(ascii: "\""))
        RFC3339.append(seconds, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    // MARK: Commas

    @inline(__always)
    private mutating func beforeValue() {
        if afterKey {
            afterKey = false
            return
        }
        precondition(isObject & currentBit == 0, "JSONWriter: a value in an object without a key")
        comma()
    }

    /// A comma before every element of a container but the first.
    @inline(__always)
    private mutating func comma() {
        guard depth > 0 else { return }
        if hasElement & currentBit != 0 { bytes.append(UInt8(ascii: ",")) }
        hasElement |= currentBit
    }

    /// The bit of the innermost open container (0 when none is open).
    private var currentBit: UInt64 { depth == 0 ? 0 : 1 << UInt64(depth - 1) }

    @inline(__always)
    private mutating func open(object: Bool) {
        precondition(depth < 64, "JSONWriter: nesting deeper than 64")
        depth += 1
        hasElement &= ~currentBit
        if object { isObject |= currentBit } else { isObject &= ~currentBit }
    }

    @inline(__always)
    private mutating func close(object: Bool) {
        precondition(depth > 0 && (isObject & currentBit != 0) == object && !afterKey, "JSONWriter: unbalanced container or key without value")
        depth -= 1
    }

    // MARK: Number text

    public static func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
        guard value.isFinite else {
            bytes.append(contentsOf: "null".utf8)
            return
        }
        if value.magnitude < 9_007_199_254_740_992, value == value.rounded(.towardZero) {
            // Integral: no ".0", and no "-0" either.
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            appendDigits(UInt64(value.magnitude), to: &bytes)
            return
        }
        // Swift's description is the shortest round-trip text, and always valid JSON for finite values.
        bytes.append(contentsOf: value.description.utf8)
    }

    static func appendDigits(_ value: UInt64, to bytes: inout [UInt8]) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch, enough for 20 digits
        withUnsafeMutableBytes(of: &digits) { scratch in
            var v = value
            var i = scratch.count
            repeat {
                i -= 1
                scratch[i] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            } while v != 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[i...]))
        }
    }
}
