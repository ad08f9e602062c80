/// Which devices a fence or tour applies to, as the judge decides it (docs/topics-and-payloads.md "Fences",
/// `devices`): glob patterns where `*` matches any run of characters and `?` exactly one, every
/// other character itself. Written apart from the engine's matcher, as the judge's geometry is.
enum JudgeDevicePattern {
    /// Whether any of `patterns` matches `device`.
    static func matches(_ patterns: [String], _ device: String) -> Bool {
        patterns.contains { matches($0, device) }
    }

    /// Compared scalar by scalar: ids are exact bytes, and Swift's `==` on strings would call
    /// canonically equivalent spellings (NFC and NFD) equal.
    static func matches(_ pattern: String, _ device: String) -> Bool {
        let p = Array(pattern.unicodeScalars), s = Array(device.unicodeScalars)
        // reachable[j]: the pattern read so far can match the first j scalars of the id.
        var reachable = [Bool](repeating: false, count: s.count + 1)
        reachable[0] = true
        for symbol in p {
            var next = [Bool](repeating: false, count: s.count + 1)
            switch symbol {
            case "*":
                // Any run, the empty one too: everything at or after the first reachable prefix.
                var seen = false
                for j in 0...s.count {
                    seen = seen || reachable[j]
                    next[j] = seen
                }
            case "?":
                for j in 0..<s.count where reachable[j] { next[j + 1] = true }
            default:
                for j in 0..<s.count where reachable[j] && s[j] == symbol { next[j + 1] = true }
            }
            reachable = next
        }
        return reachable[s.count]
    }
}
