import MQTT
import Testing

@Suite struct MQTTTopicFilterTests {
    @Test(arguments: [
        ("fleet/+/position", "fleet/truck-7/position", true),
        ("fleet/+/position", "fleet/truck-7/state", false),
        ("fleet/+/position", "fleet/a/b/position", false),
        ("fleetfence/#", "fleetfence", true),
        ("fleetfence/#", "fleetfence/alerts/t/f/enter", true),
        ("#", "anything/at/all", true),
        ("#", "$SYS/broker/uptime", false),
        ("+/x", "$SYS/x", false),
        ("$SYS/#", "$SYS/broker/uptime", true),
        ("a/+", "a", false),
        ("a/+", "a/", true),
        ("a/b", "a/b", true),
        ("a/b", "a/bc", false),
    ])
    func matches(_ filter: String, _ topic: String, _ expected: Bool) {
        #expect(MQTTTopicFilter.matches(filter, topic: topic) == expected)
    }
}
