/// The topic trucks publish on, taken from the service's position filters (`topics.positions`)
/// so that setting FLEETFENCE_TOPICS_POSITIONS once serves both sides.
public enum PositionTopicTemplate {
    public static let standard = "fleet/{device}/position"

    /// The first of `filters` (comma-separated, as in the variable) that takes fleetsim's
    /// payloads, with `{device}` in place of its first `+`, the level the service reads the
    /// device id from. The service reads `owntracks/` filters as OwnTracks messages, which
    /// fleetsim does not send; a filter with other wildcards names no single topic.
    public static func derive(fromFilters filters: String) throws(SimulationError) -> String {
        let candidates = filters.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        for filter in candidates where !filter.hasPrefix("owntracks/") {
            var levels = filter.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            guard let device = levels.firstIndex(of: "+") else { continue }
            levels[device] = "{device}"
            let template = levels.joined(separator: "/")
            if !template.contains("+"), !template.contains("#") { return template }
        }
        throw .invalidOptions(
            "no filter in FLEETFENCE_TOPICS_POSITIONS ('\(filters)') names one topic per device for fleetsim's"
                + " positions: give --topic-template")
    }
}
