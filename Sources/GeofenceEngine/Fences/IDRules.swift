/// What every fence, tour and stop id must be (docs/topics-and-payloads.md "Fences"): not empty, and at most 256
/// bytes of UTF-8, since ids are topic levels and the journal's keys.
public enum IDRules {
    public static let maxBytes = 256

    /// Nil when `id` is acceptable, else its length in bytes (0 for empty).
    static func badLength(_ id: String) -> Int? {
        let bytes = id.utf8.count
        return bytes == 0 || bytes > maxBytes ? bytes : nil
    }
}
