import FleetFenceCodecs

/// The strict JSON reader (docs/topics-and-payloads.md "Fences"): an error points inside the input; a value has no repeated key
/// and no deeper nesting than allowed, and, where `JSONWriter` can write it (64 levels), writes back to text
/// that reads as the same value.
enum JSONChecks {
    static func check(_ bytes: UnsafeRawBufferPointer) throws(InvariantViolation) {
        let value: JSONValue
        switch JSONParser.parse(bytes) {
        case let .failure(error):
            try require(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) of \(bytes.count) bytes")
            try require(!error.detail.isEmpty, "an error without detail")
            return
        case let .success(parsed):
            value = parsed
        }
        let depth = try shape(value)
        try require(depth <= JSONParser.maximumDepth, "nesting \(depth) accepted")
        guard depth <= 64 else { return }
        var writer = JSONWriter()
        write(value, to: &writer)
        switch JSONParser.parse(writer.bytes) {
        case let .success(again):
            try require(same(value, again), "read \(value), wrote \(String(decoding: writer.bytes, as: UTF8.self)), read back \(again)")
        case let .failure(error):
            try require(false, "the writer's own text does not parse: \(error) in \(String(decoding: writer.bytes, as: UTF8.self))")
        }
    }

    /// The nesting depth; throws on a repeated key in any object.
    private static func shape(_ value: JSONValue) throws(InvariantViolation) -> Int {
        switch value {
        case let .array(items):
            var deepest = 0
            for item in items { deepest = max(deepest, try shape(item)) }
            return deepest + 1
        case let .object(object):
            var deepest = 0
            var keys = Set<String>()
            for member in object {
                try require(keys.insert(member.key).inserted, "repeated key \(member.key.debugDescription) accepted")
                deepest = max(deepest, try shape(member.value))
            }
            return deepest + 1
        default:
            return 0
        }
    }

    static func write(_ value: JSONValue, to writer: inout JSONWriter) {
        switch value {
        case .null: writer.null()
        case let .bool(b): writer.bool(b)
        case let .number(x): writer.number(x)
        case let .string(s): writer.string(s)
        case let .array(items):
            writer.beginArray()
            for item in items { write(item, to: &writer) }
            writer.endArray()
        case let .object(object):
            writer.beginObject()
            for member in object {
                writer.key(member.key)
                write(member.value, to: &writer)
            }
            writer.endObject()
        }
    }

    /// Equal, strings and keys scalar for scalar, members in order, numbers bit for bit but for the sign of
    /// zero (the writer writes -0 as 0).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x.bitPattern == y.bitPattern || (x == 0 && y == 0)
        case let (.string(x), .string(y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy {
                $0.key.unicodeScalars.elementsEqual($1.key.unicodeScalars) && same($0.value, $1.value)
            }
        default: return false
        }
    }
}
