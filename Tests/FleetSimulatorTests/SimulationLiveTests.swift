import FleetFenceCodecs
import FleetFenceTesting
import Foundation
import GeofenceEngine
import Logging
import MQTT
import Synchronization
import Testing
@testable import FleetSimulator

/// A stand-in for the service, enough to test the simulator's MQTT side: the engine behind one
/// MQTT client, holding the tours set on it and publishing its transitions as alerts and tour
/// events. The real service's end-to-end test is the service's own.
final class EngineResponder: Sendable {
    let client: MQTTClient
    private let ticking = Mutex<Task<Void, Never>?>(nil)

    /// The engine, shared by the client's network thread and the silence ticker.
    private final class Shared: Sendable {
        let engine: Mutex<GeofenceEngine>
        init(_ engine: GeofenceEngine) { self.engine = Mutex(engine) }
        func withLock<R, E: Error>(_ body: (inout GeofenceEngine) throws(E) -> R) throws(E) -> R {
            try engine.withLock { (engine) throws(E) -> R in try body(&engine) }
        }
    }

    init(url: String, fences: [JudgeFence], settings: GeofenceSettings) async throws {
        var engine = GeofenceEngine(settings: settings)
        for fence in fences { _ = try engine.setFence(fence.definition) }
        let shared = Shared(engine)
        let client = try MQTTClient(options: MQTTOptions(url: try MQTTURL(parsing: url), clientID: "responder"), logger: testLogger("responder"))
        self.client = client
        client.subscribe(["fleet/+/position", "fleetfence/tours/+/set"], qos: 1)
        client.onMessage { message in
            let parts = message.topic.split(separator: "/")
            if parts.first == "fleetfence" {
                guard let tour = try? TourDecoder.decodeDefinition(message.payloadBytes, idFromTopic: String(parts[2])),
                      (try? shared.withLock({ try $0.setTour(tour) })) != nil
                else { return }
                client.publish(topic: "fleetfence/tours/\(tour.id)", payload: TourDefinitionEncoding.encode(tour), qos: 1, retain: true)
                return
            }
            guard parts.count == 3, case let .success(position) = PositionDecoder.decode(message.payloadBytes, deviceID: String(parts[1])) else {
                return
            }
            var transitions: [Transition] = []
            let now = Date().timeIntervalSince1970
            shared.withLock { _ = $0.process(device: String(parts[1]), sample: position.sample(arrival: now), arrival: now, into: &transitions) }
            Self.publish(transitions, client)
        }
        try await client.connect(timeout: .seconds(5))
        #expect(await client.waitForSubscriptions(timeout: .seconds(5)))
        let ticker = Task {
            while !Task.isCancelled {
                var transitions: [Transition] = []
                shared.withLock { _ = $0.tick(now: Date().timeIntervalSince1970, into: &transitions) }
                Self.publish(transitions, client)
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
        ticking.withLock { $0 = ticker }
    }

    private static func publish(_ transitions: [Transition], _ client: MQTTClient) {
        for t in transitions {
            // As the service does (docs/rules.md "Tours"): a tour's events under the device's progress.
            let topic = t.event.isTourEvent
                ? "fleetfence/progress/\(t.device)/\(t.tourID ?? "")/\(t.event.rawValue)"
                : "fleetfence/alerts/\(t.device)/\(t.fenceID)/\(t.event.rawValue)"
            client.publish(topic: topic, payload: AlertPayload.encode(t), qos: 1)
        }
    }

    func stop() async {
        ticking.withLock { $0?.cancel() }
        await client.disconnect()
    }
}

@Suite("Simulation over a real broker", .serialized)
struct SimulationLiveTests {
    /// Short silences keep the test quick: the service and ground truth must agree on them.
    let settings = GeofenceSettings(silentConfirmSeconds: 1.5)

    func options(url: String, _ change: (inout SimulationOptions) -> Void) throws -> SimulationOptions {
        var options = SimulationOptions(routes: try RouteLoader.load(paths: [Fixtures.routesDirectory.path]))
        options.broker = url
        options.speedup = 100
        options.fleet.trucks = 14
        options.fleet.stagger = 60
        options.fleet.startTime = 1_795_600_000
        var verify = try VerifyOptions(fencesFile: Fixtures.fencesFile.path, silentConfirmSeconds: settings.silentConfirmSeconds)
        verify.settle = 2.5
        options.verify = verify
        change(&options)
        return options
    }

    @Test func verifyScoresAServiceThatFollowsTheRules() async throws {
        try await withLocalBroker { broker in
            let options = try options(url: broker.url) {
                $0.fleet.noise = 2
                $0.fleet.reverse = true
                $0.maxConnections = 5
                $0.tours = Fixtures.bundledTours
            }
            let responder = try await EngineResponder(url: broker.url, fences: options.verify!.fences, settings: settings)
            let lines = Mutex<[String]>([])
            let running = StallWatch.stopwatch()
            let report = try await Simulation.run(options, logger: testLogger("sim")) { line in
                lines.withLock { $0.append(line) }
            }
            let paused = running.longestPause
            await responder.stop()
            let result = try #require(report)
            #expect(result.isClean, "\(result)")
            #expect(result.expected >= 14 * 2)
            #expect(result.matched == result.expected)
            #expect(result.positions > 3000)
            #expect(lines.withLock { $0.count } == result.matched + result.ambiguousAlerted)
            #expect(lines.withLock { $0.contains { $0.contains("DWELL wdf-depot (Walldorf Depot)") } })
            // Speeding and the tour's events came over MQTT and were scored (14 trucks: the
            // delivery routes are trucks 5 to 7, the fast school-zone track truck 13).
            for event in [AlertEvent.speeding, .stopVisited, .tourCompleted] {
                #expect((result.byEvent[event]?.expected ?? 0) > 0, "no \(event) expected: \(result)")
            }
            #expect(lines.withLock { $0.contains { $0.contains("STOP_VISITED dock-a, tour deliveries stop_index 0") } })
            // Alerts arrive at once; a pause of the whole machine meanwhile is not theirs (`StallWatch`):
            // the slowest may owe it the longest one.
            #expect((result.receiveDelays?.max ?? 99) < 5 + paused / .seconds(1))
        }
    }

    @Test func stoppingEarlyScoresWhatWasPublished() async throws {
        try await withLocalBroker { broker in
            let options = try options(url: broker.url) { $0.fleet.loop = true }
            let responder = try await EngineResponder(url: broker.url, fences: options.verify!.fences, settings: settings)
            let simulation = try Simulation(options: options, logger: testLogger("sim"))
            let stopper = Task {
                try await Task.sleep(for: .seconds(6))
                simulation.stop()
            }
            let report = try #require(try await simulation.run())
            _ = try? await stopper.value
            await responder.stop()
            #expect(report.isClean, "\(report)")
            #expect(report.simulatedSeconds > 400 && report.simulatedSeconds < 900)
            #expect(report.expected > 0)
        }
    }

    @Test func aBrokerThatIsNotThereIsAnError() async throws {
        var options = try options(url: "mqtt://127.0.0.1:1") { _ in }
        options.verify = nil
        await #expect(throws: SimulationError.self) { try await Simulation.run(options, logger: testLogger("sim")) }
    }
}
