/// Checks on the MQTT topics the configuration names, with messages an operator can act on.
enum TopicFilterRules {
    /// Why `filter` cannot be a position filter, or `nil` when it can. A filter must be valid MQTT
    /// (`+` and `#` fill a whole level, `#` only last) and hold a `+`, the first of which is the device id.
    /// `owntracks/+/+` passes like any other: its device id is `<user>-<device>`.
    static func positionFilterProblem(_ filter: String) -> String? {
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
        if !levels.contains("+") {
            return "topic filter \(filter) has no + for the device id"
        }
        return nil
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
