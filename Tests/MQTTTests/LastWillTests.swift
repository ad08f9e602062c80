import FleetFenceTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct LastWillTests {
    private func clientWithWill(_ broker: LocalMosquitto, topic: String) async throws -> MQTTClient {
        var options = broker.clientOptions()
        options.will = MQTTWill(topic: topic, payload: "offline", qos: 1, retain: false)
        return try await broker.connectedClient(options)
    }

    @Test func willIsPublishedWhenAClientVanishesWithoutDisconnect() async throws {
        try await withLocalBroker { broker in
            let collector = try await MessageCollector.start(url: broker.url, filters: ["status/#"])
            var vanishing: MQTTClient? = try await clientWithWill(broker, topic: "status/vanishing")
            #expect(vanishing?.isConnected == true)
            // Dropping the last reference stops the thread and closes the socket without
            // DISCONNECT, as a crash would.
            vanishing = nil

            let will = await collector.next(topicPrefix: "status/vanishing")
            #expect(will?.text == "offline")
            await collector.stop()
        }
    }

    @Test func cleanDisconnectPublishesNoWill() async throws {
        try await withLocalBroker { broker in
            let collector = try await MessageCollector.start(url: broker.url, filters: ["status/#"])
            let polite = try await clientWithWill(broker, topic: "status/polite")
            await polite.disconnect()
            #expect(!polite.isConnected)

            // The broker has handled the DISCONNECT before this later publish: once the
            // marker arrives, a will would have arrived before it.
            try await publishOnce(url: broker.url, topic: "status/marker", payload: "after")
            #expect(await collector.next(topicPrefix: "status/marker")?.text == "after")
            #expect(!collector.collected.contains { $0.topic == "status/polite" })
            await collector.stop()
        }
    }
}
