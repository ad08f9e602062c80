/// Checks on the MQTT topics the configuration names, with messages an operator can act on.
enum TopicFilterRules {
    /// Why `filter` cannot be a position filter, or `nil` when it can. A filter must be valid MQTT
    /// (`+` and `#` fill a whole level, `#` only last) and hold a `+`, the first of which is the device id.
    /// `owntracks/+/+` passes like any other: its device id is `<user>-<device>`.
    static func positionFilterProblem(_ filter: String) -> String? {
        if let problem = filterProblem(filter) { return problem }
        if !filter.split(separator: "/", omittingEmptySubsequences: false).contains("+") {
            return "topic filter \(filter) has no + for the device id"
        }
        return nil
    }

    /// Why `filter` is not a valid MQTT topic filter, or `nil`: the check of inputs whose device id
    /// is in the payload (Traccar, and mappings, which may take it from any level).
    static func filterProblem(_ filter: String) -> String? {
        if filter.isEmpty { return "a topic filter is empty" }
        if filter.contains("\u{0}") { return "topic filter \(filter) contains a NUL character" }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("+") && level != "+" {
                return "in \(filter), + must fill a whole topic level"
            }
            if level.contains("#") && (level != "#" || index != levels.count - 1) {
                return "in \(filter), # must be the whole last topic level"
            }
        }
        return nil
    }

    /// Whether some topic matches both filters (MQTT 3.1.1, 4.7): level by level, `+` matches any
    /// one level, `#` every rest including none (`a/#` matches `a`). Exact, not a guess: identical
    /// filters, `fleet/+/position` against `fleet/truck1/position`, or `#` against anything overlap.
    static func overlap(_ a: String, _ b: String) -> Bool {
        let x = a.split(separator: "/", omittingEmptySubsequences: false)
        let y = b.split(separator: "/", omittingEmptySubsequences: false)
        var i = 0
        while i < x.count, i < y.count {
            if x[i] == "#" || y[i] == "#" { return true }
            if x[i] != "+", y[i] != "+", x[i] != y[i] { return false }
            i += 1
        }
        if x.count == y.count { return true }
        // One ended: the other matches its topic only by a final `#` right here.
        let longer = x.count > y.count ? x : y
        return longer.count == i + 1 && longer[i] == "#"
    }

    /// Why `prefix` cannot be the root of the service's topics, or `nil`.
    static func prefixProblem(_ prefix: String) -> String? {
        if prefix.isEmpty { return "must not be empty" }
        if prefix.contains(where: { $0 == "+" || $0 == "#" || $0 == "\u{0}" }) {
            return "must not contain +, # or NUL, got \(prefix)"
        }
        if prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return "must not start or end with / or contain //, got \(prefix)"
        }
        return nil
    }
}
