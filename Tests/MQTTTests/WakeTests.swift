import FleetFenceTesting
import Testing

@testable import MQTT

/// The network thread writes what other threads publish as soon as it is queued. Between
/// turns it sleeps in poll(); these clients sleep up to 10 s there, so that a lost wake-up shows
/// as a publish that waits about that long, far beyond what a busy machine delays anything
/// (a shared 2-core machine under a parallel test run once stalled all three tests for 1.7 s).
/// A pause of the whole machine (once 13.5 s) is not counted: `StallWatch` sees it beside.
@Suite(.timeLimit(.minutes(1)))
struct WakeTests {
    /// Longer than the idle wait, so that a lost wake-up is measured (about 10 s) against the
    /// 5 s bound instead of ending the wait first.
    private static let patience: Duration = .seconds(15)

    private func sleepyPublisher(_ broker: LocalMosquitto) async throws -> MQTTClient {
        var options = broker.clientOptions()
        options.idleWait = .seconds(10)
        return try await broker.connectedClient(options)
    }

    @Test(arguments: [Int32(0), 1])
    func publishesFromAnotherThreadGoOutAtOnce(qos: Int32) async throws {
        try await withLocalBroker { broker in
            let collector = try await MessageCollector.start(url: broker.url, filters: ["wake/#"], qos: qos)
            let publisher = try await sleepyPublisher(broker)
            var slowest: Duration = .zero
            for index in 0..<20 {
                // Idle first, so that the network thread is asleep in poll() when the publish comes.
                try await Task.sleep(for: .milliseconds(5))
                let waiting = StallWatch.stopwatch()
                publisher.publish(topic: "wake/\(index)", payload: "\(index)", qos: qos)
                #expect(await collector.next(topicPrefix: "wake/\(index)", timeout: Self.patience)?.text == "\(index)")
                slowest = max(slowest, waiting.elapsedWithoutPauses)
            }
            #expect(slowest < .seconds(5), "a publish waited \(slowest): its wake-up was lost")
            await publisher.disconnect()
            await collector.stop()
        }
    }

    /// Bursts, each followed by a probe: clearing the wake-up's flag before draining its pipe
    /// once lost the wake-up of a publish made in between, and every later publish waited.
    @Test func probesAfterBurstsGoOutAtOnce() async throws {
        try await withLocalBroker { broker in
            let collector = try await MessageCollector.start(url: broker.url, filters: ["probe/#"], qos: 0)
            let publisher = try await sleepyPublisher(broker)
            var slowest: Duration = .zero
            for round in 0..<20 {
                for index in 0..<200 { publisher.publish(topic: "bulk/\(index)", payload: "x", qos: 0) }
                let waiting = StallWatch.stopwatch()
                publisher.publish(topic: "probe/\(round)", payload: "\(round)", qos: 0)
                #expect(await collector.next(topicPrefix: "probe/\(round)", timeout: Self.patience) != nil)
                slowest = max(slowest, waiting.elapsedWithoutPauses)
            }
            #expect(slowest < .seconds(5), "a probe waited \(slowest): its wake-up was lost")
            await publisher.disconnect()
            await collector.stop()
        }
    }
}
