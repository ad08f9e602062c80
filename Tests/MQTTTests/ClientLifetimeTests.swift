import FleetFenceTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ClientLifetimeTests {
    @Test func clientReleasedFromItsOwnHandlerEndsCleanly() async throws {
        try await withLocalBroker { broker in
            let collector = try await MessageCollector.start(url: broker.url, filters: ["status/#"])
            // The only strong reference lives in this box; the handler empties it, so the
            // client's deinit runs on its own network thread and must not join itself.
            let box = Box()
            try await startSelfReleasingClient(broker, into: box)
            #expect(box.client.withLock { $0 != nil })

            try await publishOnce(url: broker.url, topic: "release/me", payload: "now")
            #expect(await collector.next(topicPrefix: "status/self-released")?.text == "offline")
            #expect(box.client.withLock { $0 == nil })
            await collector.stop()
        }
    }

    private final class Box: Sendable {
        let client = Mutex<MQTTClient?>(nil)
    }

    /// Separate function, so no local reference outlives it.
    private func startSelfReleasingClient(_ broker: LocalMosquitto, into box: Box) async throws {
        var options = broker.clientOptions()
        options.will = MQTTWill(topic: "status/self-released", payload: "offline", qos: 1, retain: false)
        let client = try MQTTClient(options: options, logger: testLogger())
        client.onMessage { [box] _ in box.client.withLock { $0 = nil } }
        client.subscribe(["release/me"], qos: 1)
        try await client.connect(timeout: .seconds(5))
        #expect(await client.waitForSubscriptions(timeout: .seconds(5)))
        box.client.withLock { $0 = client }
    }

    @Test func unsubscribeStopsDelivery() async throws {
        try await withLocalBroker { broker in
            let collector = try await MessageCollector.start(url: broker.url, filters: ["a/#", "b/#"])
            collector.client!.unsubscribe(["a/#"])
            #expect(await collector.client!.waitForSubscriptions(timeout: .seconds(5)))
            try await publishOnce(url: broker.url, topic: "a/1", payload: "gone")
            try await publishOnce(url: broker.url, topic: "b/1", payload: "marker")
            #expect(await collector.next(topicPrefix: "b/")?.text == "marker")
            #expect(!collector.collected.contains { $0.topic == "a/1" })
            await collector.stop()
        }
    }
}
