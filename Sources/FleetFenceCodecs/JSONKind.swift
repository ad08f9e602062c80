/// The six kinds of JSON value, named once for every error message that says what was found.
public enum JSONKind: Sendable {
    case null, bool, number, string, array, object

    /// "boolean", "number", "array": as in "payload is a JSON array".
    public var name: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// "null", "a boolean", "an array": as in "must be a number, not a string".
    public var nameWithArticle: String {
        switch self {
        case .null: "null"
        case .array, .object: "an \(name)"
        default: "a \(name)"
        }
    }
}
