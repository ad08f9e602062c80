/// Why a `devices` list of glob patterns was rejected.
public enum DevicePatternError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No pattern at all: no device would ever match. Leaving the key out means every device.
    case empty
    case tooManyPatterns(count: Int, limit: Int)
    case emptyPattern
    case patternTooLong(bytes: Int, limit: Int)
    /// `/`, `+`, `#` or NUL: a device id is one topic level and never holds them (MQTT's
    /// wildcards are `+` and `#`; these patterns use `*` and `?`).
    case impossibleCharacter(pattern: String)

    public var description: String {
        switch self {
        case .empty: "the list is empty, so no device would match (leave it out for every device)"
        case let .tooManyPatterns(count, limit): "\(count) patterns, at most \(limit) are accepted"
        case .emptyPattern: "a pattern is empty"
        case let .patternTooLong(bytes, limit): "a pattern is \(bytes) bytes long, at most \(limit) are accepted"
        case let .impossibleCharacter(pattern):
            "pattern \"\(pattern)\" has '/', '+', '#' or NUL, which no device id holds (use * and ?)"
        }
    }
}
