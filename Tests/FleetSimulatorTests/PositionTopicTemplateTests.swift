import FleetSimulator
import Testing

@Suite("Position topic from the service's filters")
struct PositionTopicTemplateTests {
    @Test(arguments: [
        ("fleet/+/position", "fleet/{device}/position"),
        ("trucks/+/pos, owntracks/+/+", "trucks/{device}/pos"),
        ("+/gps", "{device}/gps"),
        ("site/7/+/pos", "site/7/{device}/pos"),
    ])
    func theFirstFilterWithTheDeviceLevel(filters: String, template: String) throws {
        #expect(try PositionTopicTemplate.derive(fromFilters: filters) == template)
    }

    /// More wildcards than the device's level, or none at all: no single topic to publish on.
    @Test(arguments: ["site/+/+/pos", "fleet/+/#", "fleet/positions", "", "fleet/+x/pos"])
    func aFilterThatNamesNoTopicAsksForATemplate(filters: String) {
        #expect(throws: SimulationError.self) { try PositionTopicTemplate.derive(fromFilters: filters) }
    }
}
