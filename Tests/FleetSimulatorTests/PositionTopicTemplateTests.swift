import FleetSimulator
import Testing

@Suite("Position topic from the service's filters")
struct PositionTopicTemplateTests {
    @Test(arguments: [
        ("fleet/+/position", "fleet/{device}/position"),
        ("trucks/+/pos, owntracks/+/+", "trucks/{device}/pos"),
        (" trucks/+/pos", "trucks/{device}/pos"),
        ("+/gps", "{device}/gps"),
        ("site/7/+/pos", "site/7/{device}/pos"),
        // The service reads OwnTracks messages there, and a filter with more wildcards names no topic.
        ("owntracks/+/+, fleet/+/position", "fleet/{device}/position"),
        ("site/+/+/pos, fleet/+/position", "fleet/{device}/position"),
    ])
    func theFirstFilterWithTheDeviceLevel(filters: String, template: String) throws {
        #expect(try PositionTopicTemplate.derive(fromFilters: filters) == template)
    }

    /// More wildcards than the device's level, none at all, or OwnTracks only: nothing to publish on.
    @Test(arguments: ["site/+/+/pos", "fleet/+/#", "fleet/positions", "", "fleet/+x/pos", "owntracks/fleet/+"])
    func aFilterThatNamesNoTopicAsksForATemplate(filters: String) {
        #expect(throws: SimulationError.self) { try PositionTopicTemplate.derive(fromFilters: filters) }
    }
}
