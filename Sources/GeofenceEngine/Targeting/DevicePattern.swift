/// Glob patterns on device ids (docs/topics-and-payloads.md "Fences", `devices`): `*` matches any run of characters,
/// `?` exactly one character (one Unicode scalar); every other byte matches itself. Ids are
/// compared as bytes, never as canonically equivalent text.
public enum DevicePattern {
    public static let maxPatternBytes = 256
    /// A fence for a long list of named trucks stays possible; a list of every device is `*`.
    public static let maxPatterns = 1_000

    static let star = UInt8(ascii: "*")
    static let question = UInt8(ascii: "?")

    public static func validate(_ patterns: [String]) throws(DevicePatternError) {
        if patterns.isEmpty { throw .empty }
        if patterns.count > maxPatterns { throw .tooManyPatterns(count: patterns.count, limit: maxPatterns) }
        for pattern in patterns {
            let bytes = pattern.utf8.count
            if bytes == 0 { throw .emptyPattern }
            if bytes > maxPatternBytes { throw .patternTooLong(bytes: bytes, limit: maxPatternBytes) }
            if pattern.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") || $0 == 0 }) {
                throw .impossibleCharacter(pattern: pattern)
            }
        }
    }

    /// Whether the list matches every device (a pattern of stars alone).
    static func matchesEveryone(_ patterns: [String]) -> Bool {
        patterns.contains { !$0.isEmpty && $0.utf8.allSatisfy { $0 == star } }
    }

    /// The bytes before the first `*` or `?`: every id the pattern matches starts with them.
    static func literalPrefix(_ pattern: [UInt8]) -> ArraySlice<UInt8> {
        pattern[..<(pattern.firstIndex { $0 == star || $0 == question } ?? pattern.endIndex)]
    }

    static func hasWildcard(_ pattern: [UInt8]) -> Bool {
        pattern.contains { $0 == star || $0 == question }
    }

    public static func matches(_ pattern: String, _ id: String) -> Bool {
        matches(Array(pattern.utf8), Array(id.utf8))
    }

    /// Iterative glob matching with one backtrack point (the latest `*`): linear in practice,
    /// at worst pattern length x id length, both at most 256 bytes. `*` and `?` step over whole
    /// UTF-8 sequences, so that `?` is one character and a star never splits one.
    static func matches(_ pattern: [UInt8], _ id: [UInt8]) -> Bool {
        var p = 0, s = 0
        var starP = -1, starS = 0
        while s < id.count {
            if p < pattern.count, pattern[p] == question {
                p += 1
                s = nextScalar(id, after: s)
            } else if p < pattern.count, pattern[p] == star {
                starP = p
                p += 1
                starS = s
            } else if p < pattern.count, pattern[p] == id[s] {
                p += 1
                s += 1
            } else if starP >= 0 {
                p = starP + 1
                starS = nextScalar(id, after: starS)
                s = starS
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == star { p += 1 }
        return p == pattern.count
    }

    /// The index after the UTF-8 sequence starting at `index`: continuation bytes (10xxxxxx)
    /// belong to the scalar before them.
    private static func nextScalar(_ bytes: [UInt8], after index: Int) -> Int {
        var next = index + 1
        while next < bytes.count, bytes[next] & 0xC0 == 0x80 { next += 1 }
        return next
    }
}
