/// The field checks of the foreign formats (Traccar, OsmAnd, custom mappings), over values the general
/// parser read: the same limits and the same reasons as a native payload (docs/trackers.md "Connecting
/// trackers"), with each field named as the format spells it.
enum ForeignFields {
    /// How a time number counts.
    enum TimeUnit: Sendable, Hashable {
        case seconds
        case milliseconds
    }

    /// A required coordinate: a finite number within [-limit, limit].
    static func coordinate(
        _ value: JSONValue?, field: String, limit: Double, numericStrings: Bool = false
    ) throws(PositionRejection) -> Double {
        guard let value, value != .null else { throw .missingField(field) }
        let x = try number(value, field: field, numericStrings: numericStrings)
        guard x >= -limit, x <= limit else { throw .outOfRange(field: field, value: x) }
        return x
    }

    /// An optional time: a number in `unit`, or an ISO 8601 string (RFC 3339, or an offset without its
    /// colon); with `numericStrings`, a string holding a number counts as that number.
    static func time(
        _ value: JSONValue?, field: String, unit: TimeUnit = .seconds, numericStrings: Bool = false
    ) throws(PositionRejection) -> Double? {
        var seconds: Double
        switch value {
        case nil, .null?: return nil
        case let .number(x)?:
            guard x.isFinite else { throw .notFinite(field: field) }
            seconds = x
        case let .string(text)?:
            if let parsed = ISO8601Time.parse(text) {
                guard parsed > 0, parsed <= RFC3339.maxSeconds else { throw .outOfRange(field: field, value: parsed) }
                return parsed
            }
            guard numericStrings, let x = Self.numeric(text) else {
                throw .badTimestamp(field: field, text: text, expected: numericStrings ? "a number or an ISO 8601 time" : "an ISO 8601 time")
            }
            seconds = x
        case let other?:
            throw .wrongType(field: field, expected: "a number or an ISO 8601 string", got: other.kindName)
        }
        if unit == .milliseconds {
            seconds /= 1000
            // Before March 1973 in milliseconds is a time in seconds, under a unit set wrong (a
            // mapping's `ts_unit: ms`): taken, it dated the fix in January 1970. Refused, as a
            // time in milliseconds given as seconds is.
            guard seconds >= Self.earliestMilliseconds else { throw .outOfRange(field: field, value: seconds) }
        }
        guard seconds > 0, seconds <= RFC3339.maxSeconds else { throw .outOfRange(field: field, value: seconds) }
        return seconds
    }

    /// The earliest time, in seconds, read from milliseconds: 10^11 ms, March 1973.
    static let earliestMilliseconds = 1e8

    /// Epoch seconds, or milliseconds past 10^11 (seconds that large are 5,000 years away), or ISO
    /// 8601: for formats whose senders write either (OsmAnd's `timestamp`; Traccar's `fixTime`, a
    /// string by default, epoch milliseconds from a Jackson set to write timestamps).
    static func epochOrISOTime(_ value: JSONValue?, field: String) throws(PositionRejection) -> Double? {
        let number: Double
        switch value {
        case let .number(x)?: number = x
        case let .string(text)?:
            guard let x = numeric(text) else { return try time(value, field: field, numericStrings: true) }
            number = x
        default: return try time(value, field: field)
        }
        return try time(.number(number), field: field, unit: number > 1e11 ? .milliseconds : .seconds)
    }

    /// An optional accuracy in metres, >= 0; `zeroIsUnknown` for formats where 0 says "not known".
    static func accuracy(
        _ value: JSONValue?, field: String, zeroIsUnknown: Bool = false, numericStrings: Bool = false
    ) throws(PositionRejection) -> Double? {
        guard let acc = try optionalNumber(value, field: field, numericStrings: numericStrings) else { return nil }
        guard acc >= 0 else { throw .outOfRange(field: field, value: acc) }
        return zeroIsUnknown && acc == 0 ? nil : acc
    }

    /// An optional speed converted to m/s by `factor` (a negative one is unknown: `DecodedPosition`).
    static func speed(
        _ value: JSONValue?, field: String, factor: Double, numericStrings: Bool = false
    ) throws(PositionRejection) -> Double? {
        try optionalNumber(value, field: field, numericStrings: numericStrings).map { $0 * factor }
    }

    /// Absent or null is `nil`; any other non-number a type error.
    static func optionalNumber(_ value: JSONValue?, field: String, numericStrings: Bool = false) throws(PositionRejection) -> Double? {
        switch value {
        case nil, .null?: nil
        case let value?: try number(value, field: field, numericStrings: numericStrings)
        }
    }

    static func number(_ value: JSONValue, field: String, numericStrings: Bool) throws(PositionRejection) -> Double {
        let x: Double
        switch value {
        case let .number(n): x = n
        case let .string(text) where numericStrings:
            guard let n = numeric(text) else {
                throw .wrongType(field: field, expected: "a number or a string holding one", got: "the string \"\(text.prefix(40))\"")
            }
            x = n
        default:
            throw .wrongType(field: field, expected: "a number", got: value.kindName)
        }
        guard x.isFinite else { throw .notFinite(field: field) }
        return x
    }

    /// A string holding a JSON-like number (`"49.29"`, `" 8.6 "`); not `"nan"`, `"inf"` or hex.
    static func numeric(_ text: String) -> Double? {
        let trimmed = text.trimmingSpaces()
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
        }) else { return nil }
        return Double(trimmed)
    }

    /// A required string device id, checked by ``DeviceIDRules``.
    /// `numbers`: a whole number is the id in decimal (a tracker's IMEI in a custom format, say
    /// `{"imei": 356307042441013}`); one with a fraction, or past 2^53 where a `Double` no longer
    /// holds every whole number, is refused rather than read as another device.
    static func deviceID(_ value: JSONValue?, field: String, numbers: Bool = false) throws(PositionRejection) -> String {
        switch value {
        case nil, .null?: throw .missingField(field)
        case let .string(id)?:
            if let problem = DeviceIDRules.problem(id) { throw .badDeviceID(problem) }
            return id
        case let .number(number)? where numbers:
            guard number == number.rounded(), abs(number) < 9_007_199_254_740_992 else {
                // Past 2^53 the number read may not be the one sent (…993 reads as …992): not echoed.
                let got = number == number.rounded() ? "a number of 2^53 or more" : "the number \(number)"
                throw .wrongType(field: field, expected: "a string or a whole number below 2^53", got: got)
            }
            return String(Int64(number))
        case let other?: throw .wrongType(field: field, expected: numbers ? "a string or a whole number" : "a string", got: other.kindName)
        }
    }

    /// The payload as an object, with the native format's limits.
    static func object(_ payload: UnsafeRawBufferPointer) -> Result<JSONObject, PositionRejection> {
        guard payload.count <= PositionDecoder.maxPayloadBytes else { return .failure(.tooLarge(bytes: payload.count)) }
        return switch JSONParser.parse(payload) {
        case let .success(.object(object)): .success(object)
        case let .success(other): .failure(.notAnObject(found: other.kind.name))
        case let .failure(error): .failure(.notJSON(detail: error.detail))
        }
    }
}

private extension String {
    func trimmingSpaces() -> Substring {
        var slice = self[...]
        while slice.first == " " { slice.removeFirst() }
        while slice.last == " " { slice.removeLast() }
        return slice
    }
}
