/// Why a position payload was not accepted. `description` is the reason published on the errors topic.
public enum PositionRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not parseable as JSON; `detail` is the parser's own explanation.
    case notJSON(detail: String)
    /// Valid JSON, but not an object; `found` names what it was ("array", "number", ...).
    case notAnObject(found: String)
    case missingField(String)
    /// A parameter given twice (OsmAnd's query), which would leave the position ambiguous.
    case repeatedField(String)
    /// `got` names the JSON type that was found ("string", "null", ...).
    case wrongType(field: String, expected: String, got: String)
    case notFinite(field: String)
    case outOfRange(field: String, value: Double)
    /// A time field (`ts`, OwnTracks `tst`) holding a string that is not an RFC 3339 time, or (a
    /// tracker's field, `expected` says so) not an ISO 8601 one.
    case badTimestamp(field: String, text: String, expected: String = "an RFC 3339 time")
    case idMismatch(expected: String, got: String)
    /// A device id no topic level can be (docs/operations.md "Limits and failures"); the reason says why.
    case badDeviceID(String)
    /// Over `limit` bytes: a message's 64 KiB, or an HTTP body's 1 MiB.
    case tooLarge(bytes: Int, limit: Int = PositionDecoder.maxPayloadBytes)
    /// A batch (`POST /api/positions`) with more elements than it may hold.
    case tooManyElements(count: Int, limit: Int)
    /// Bytes that do not decode to text before any field is read (an HTTP query or form that is not
    /// percent-encoded UTF-8); the reason says which.
    case undecodable(String)
    /// Deliberately not a position (an OwnTracks message of another `_type`): nothing is wrong, nothing is done.
    case ignored(reason: String)

    /// True for messages that are not errors and need no answer on the errors topic.
    public var isIgnored: Bool {
        if case .ignored = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case let .notJSON(detail): "payload is not valid JSON: \(detail)"
        case let .notAnObject(found): "payload is a JSON \(found), expected an object"
        case let .missingField(field): "missing field \"\(field)\""
        case let .repeatedField(field): "field \"\(field)\" is given more than once"
        case let .wrongType(field, expected, got): "field \"\(field)\" must be \(expected), not \(got)"
        case let .notFinite(field): "field \"\(field)\" is not a finite number"
        case let .outOfRange(field, value): "field \"\(field)\" is \(value), \(Self.allowedRange(of: field, value: value))"
        case let .badTimestamp(field, text, expected): "field \"\(field)\" is \"\(text)\", which is not \(expected)"
        case let .idMismatch(expected, got): "field \"id\" is \"\(got)\" but the topic's device is \"\(expected)\""
        case let .badDeviceID(reason): reason
        case let .undecodable(reason): reason
        case let .tooManyElements(count, limit): "the array has \(count) positions, at most \(limit) are accepted"
        case let .tooLarge(bytes, limit): "payload is \(bytes) bytes, more than the \(limit) allowed"
        case let .ignored(reason): "ignored: \(reason)"
        }
    }

    private static func allowedRange(of field: String, value: Double) -> String {
        switch role(of: field) {
        case "lat", "latitude": "must be within [-90, 90]"
        case "lon", "longitude": "must be within [-180, 180]"
        case "acc", "gps_accuracy", "accuracy": "must be >= 0 metres"
        case "ts", "tst", "timestamp", "fixTime":
            "must be seconds since the epoch in (0, \(Int(RFC3339.maxSeconds))]"
                + (value > RFC3339.maxSeconds ? " (a time in milliseconds is too large)" : "")
                + (value > 0 && value < ForeignFields.earliestMilliseconds
                    ? " and, in milliseconds, after March 1973 (a time in seconds is too small)" : "")
        default: "out of range"
        }
    }

    /// What a field is, whatever the format calls its path: `position.latitude` and a mapping's
    /// `lat (/gps/0)` are latitudes.
    private static func role(of field: String) -> Substring {
        let name = field.split(separator: " ").first ?? Substring(field)
        return name.split(separator: ".").last ?? name
    }
}
