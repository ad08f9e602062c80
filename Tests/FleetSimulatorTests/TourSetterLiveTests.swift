import FleetFenceCodecs
import FleetFenceTesting
import Foundation
import GeofenceEngine
import MQTT
import Testing
@testable import FleetSimulator

/// `--tours` over a real broker: the tours are set on `<prefix>/tours/<id>/set` and awaited on the
/// retained `<prefix>/tours/<id>`; a refusal on `<prefix>/errors/tours` fails the run. A stand-in
/// answers for the service as docs/rules.md "Tours" says it does.
@Suite("Tours set over a real broker", .serialized)
struct TourSetterLiveTests {
    /// Holds every valid tour (retained) and refuses, like the service, one without stops.
    final class TourService: Sendable {
        let client: MQTTClient

        init(url: String) async throws {
            let client = try MQTTClient(options: MQTTOptions(url: try MQTTURL(parsing: url), clientID: "tour-service"), logger: testLogger("tours"))
            self.client = client
            client.subscribe(["fleetfence/tours/+/set"], qos: 1)
            client.onMessage { message in
                let id = String(message.topic.split(separator: "/")[2])
                do {
                    let tour = try TourDecoder.decodeDefinition(message.payloadBytes, idFromTopic: id)
                    try TourValidation.validate(tour)
                    client.publish(topic: "fleetfence/tours/\(id)", payload: TourDefinitionEncoding.encode(tour), qos: 1, retain: true)
                } catch {
                    var json = JSONWriter()
                    json.beginObject()
                    json.key("error")
                    json.string("\(error)")
                    json.key("topic")
                    json.string(message.topic)
                    json.endObject()
                    client.publish(topic: "fleetfence/errors/tours", payload: json.bytes, qos: 0)
                }
            }
            try await client.connect(timeout: .seconds(5))
            #expect(await client.waitForSubscriptions(timeout: .seconds(5)))
        }

        func stop() async { await client.disconnect() }
    }

    func options(_ url: String) throws -> MQTTOptions {
        MQTTOptions(url: try MQTTURL(parsing: url), clientID: "fleetsim-tours")
    }

    @Test func toursAreHeldBeforeTheSetterReturns() async throws {
        try await withLocalBroker { broker in
            let service = try await TourService(url: broker.url)
            let tours = try TourFile.load(contentsOf: Fixtures.packageRoot.appendingPathComponent("Config/tours.json"))
            try await TourSetter.set(tours, options: try options(broker.url), prefix: "fleetfence", timeout: .seconds(10), logger: testLogger("sim"))
            let held = try await MessageCollector.start(options: broker.clientOptions(), filters: ["fleetfence/tours/+"])
            let retained = await held.messages(matching: "fleetfence/tours/+", count: 1)
            #expect(retained.first?.topic == "fleetfence/tours/deliveries")
            #expect(try retained.first.map { try TourDecoder.decodeDefinition($0.payload, idFromTopic: "deliveries") } == tours.first)
            await held.stop()
            await service.stop()
        }
    }

    @Test func aRefusedTourFailsTheRun() async throws {
        try await withLocalBroker { broker in
            let service = try await TourService(url: broker.url)
            let empty = TourDefinition(id: "empty", stops: [])
            await #expect(throws: SimulationError.self) {
                try await TourSetter.set([empty], options: try options(broker.url), prefix: "fleetfence", timeout: .seconds(10), logger: testLogger("sim"))
            }
            await service.stop()
        }
    }

    @Test func aTourFileTheServiceWouldRefuseFailsBeforeAnythingStarts() {
        #expect(throws: FenceFile.LoadError.self) {
            try TourFile.load(data: Data(#"[{"id": "a", "stops": []}]"#.utf8), source: "tours.json")
        }
        #expect(throws: FenceFile.LoadError.self) {
            try TourFile.load(data: Data(#"[{"id": "a", "stops": ["x"]}, {"id": "a", "stops": ["y"]}]"#.utf8), source: "tours.json")
        }
        #expect(throws: FenceFile.LoadError.self) { try TourFile.load(data: Data("[{,}]".utf8), source: "tours.json") }
        #expect((try? TourFile.load(data: Data(#"{"id": "one", "stops": ["x", "y"], "ordered": false}"#.utf8), source: "t"))
            == [TourDefinition(id: "one", stops: ["x", "y"], ordered: false)])
    }
}
