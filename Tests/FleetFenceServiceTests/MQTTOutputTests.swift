@testable import FleetFenceService
import FleetFenceTesting
import MQTT
import Testing

/// `MQTTOutput` against a real libmosquitto and broker: what it does with a message the library
/// refuses for good.
@Suite("MQTT output")
struct MQTTOutputTests {
    /// libmosquitto publishes no topic holding a control character. Such a message is counted and
    /// logged, and the outbox's mark still follows the messages after it: held back, it made every
    /// start publish again all that came after it, once per restart.
    @Test func aMessageLibmosquittoRefusesIsCountedAndHoldsNothingBack() async throws {
        try await withLocalBroker { broker in
            let client = try await broker.connectedClient()
            let metrics = ServiceMetrics()
            let outbox = MQTTOutbox(bus: client, alertID: 0, journaled: nil)
            let logs = LogCapture()
            let output = MQTTOutput(
                bus: client, layout: TopicLayout(prefix: "ff"), metrics: metrics, clock: ManualClock(now: 1_000),
                outbox: outbox, logger: logs.logger()) { 7 }
            var effects = Effects()
            effects.publish("ff/alerts/tab\tdev/yard/enter", Array("{}".utf8), qos: 1, retain: false)
            effects.publish("ff/state/good", Array("{}".utf8), qos: 1, retain: true)
            output.committed([effects])
            #expect(await client.waitForPublishes(timeout: .seconds(5)))
            #expect(outbox.mark(force: true).mark?.alertID == 7)
            #expect(String(decoding: metrics.exposition(), as: UTF8.self).contains("fleetfence_mqtt_refused_total 1"))
            #expect(logs.text.contains("refused by libmosquitto") && logs.text.contains("ff/alerts/tab"), "\(logs.text)")
            await client.disconnect()
        }
    }
}
