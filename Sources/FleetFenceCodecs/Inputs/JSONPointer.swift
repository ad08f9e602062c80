/// An RFC 6901 JSON Pointer (`/position/lat`, `/fixes/0/lon`; `~1` is `/` and `~0` is `~` in a
/// token): where a custom mapping finds a field (docs/trackers.md "Connecting trackers").
public struct JSONPointer: Sendable, Hashable, CustomStringConvertible {
    /// The reference tokens, unescaped; none points at the whole document.
    public let tokens: [String]
    /// As written.
    public let description: String

    /// `nil` when `text` is not a pointer: neither empty nor starting with `/`, or a `~` not followed by `0` or `1`.
    public init?(_ text: String) {
        guard text.isEmpty || text.hasPrefix("/") else { return nil }
        var tokens: [String] = []
        for raw in text.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            var token = ""
            var escaped = false
            for character in raw {
                if escaped {
                    switch character {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: return nil
                    }
                    escaped = false
                } else if character == "~" {
                    escaped = true
                } else {
                    token.append(character)
                }
            }
            if escaped { return nil }
            tokens.append(token)
        }
        self.tokens = tokens
        self.description = text
    }

    /// The value pointed at, or `nil` when there is none (a missing member, an index past the end,
    /// `-`, or a token through a number or string).
    public func resolve(in document: JSONValue) -> JSONValue? {
        var current = document
        for token in tokens {
            switch current {
            case let .object(object):
                guard let next = object[token] else { return nil }
                current = next
            case let .array(array):
                // RFC 6901: decimal digits without a leading zero.
                guard let first = token.utf8.first, token.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                    first != UInt8(ascii: "0") || token.utf8.count == 1, let index = Int(token), index < array.count
                else { return nil }
                current = array[index]
            default:
                return nil
            }
        }
        return current
    }
}
