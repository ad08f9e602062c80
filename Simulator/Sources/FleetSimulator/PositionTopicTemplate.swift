/// The topic trucks publish on, taken from the service's position filters (`topics.positions`)
/// so that setting FLEETFENCE_TOPICS_POSITIONS once serves both sides.
public enum PositionTopicTemplate {
    public static let standard = "fleet/{device}/position"

    /// The first of `filters` (comma-separated, as in the variable) with `{device}` in place of
    /// its first `+`, the level the service reads the device id from. A filter with other
    /// wildcards names no single topic to publish on.
    public static func derive(fromFilters filters: String) throws(SimulationError) -> String {
        let first = filters.split(separator: ",").first.map { String($0).trimmingCharacters(in: .whitespaces) } ?? ""
        var levels = first.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if let device = levels.firstIndex(of: "+") { levels[device] = "{device}" }
        let template = levels.joined(separator: "/")
        guard template.contains("{device}"), !template.contains("+"), !template.contains("#") else {
            throw .invalidOptions(
                "cannot publish on the position filter '\(first)' (FLEETFENCE_TOPICS_POSITIONS): give --topic-template")
        }
        return template
    }
}
