/// A shell-style pattern of a webhook's `devices` and `fences` (docs/webhooks.md "Webhooks"): `*` any run
/// of characters, `?` one character, everything else itself. Matched by characters.
struct Glob: Sendable, Equatable {
    private let pattern: [Character]
    let matchesEverything: Bool

    init(_ pattern: String) {
        self.pattern = Array(pattern)
        matchesEverything = !pattern.isEmpty && pattern.allSatisfy { $0 == "*" }
    }

    func matches(_ text: String) -> Bool {
        if matchesEverything { return true }
        let text = Array(text)
        // Iterative, backtracking to the last `*` only: linear-ish, never exponential.
        var p = 0, t = 0
        var star: Int?
        var resume = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || (pattern[p] != "*" && pattern[p] == text[t]) {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                resume = t
                p += 1
            } else if let star {
                p = star + 1
                resume += 1
                t = resume
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}
