import FleetFenceTesting
import Foundation
import GeofenceEngine
import Logging
import MQTT
import Testing

@testable import FleetFenceService

@Suite("Journal pipeline", .serialized)
struct JournalPipelineTests {
    /// An alert and the device record that goes with it, from a real engine.
    func alertAndRecords() throws -> (alert: Transition, older: DeviceRecord, newer: DeviceRecord) {
        var engine = GeofenceEngine(settings: GeofenceSettings(debounceSeconds: 0))
        try engine.setFence(FenceDefinition(id: "f", shape: .circle(center: Coordinate(lat: 49.29, lon: 8.64), radius: 200)))
        var transitions: [Transition] = []
        engine.process(device: "d", sample: PositionSample(lat: 49.30, lon: 8.64, timestamp: 100), arrival: 100, into: &transitions)
        let older = try #require(engine.deviceRecord(for: "d"))
        engine.process(device: "d", sample: PositionSample(lat: 49.29, lon: 8.64, timestamp: 101), arrival: 101, into: &transitions)
        let newer = try #require(engine.deviceRecord(for: "d"))
        return (try #require(transitions.first), older, newer)
    }

    func step(_ alert: Transition, record: DeviceRecord) -> JournalPipeline.Step {
        let payload = Array("alert".utf8)
        return JournalPipeline.Step(
            transitions: [JournalTransition(alert, alertJSON: payload)], devices: [record],
            messages: [Outbox.Message(topic: "t/alert", payload: payload, qos: 1, retain: false)])
    }

    func storedTimestamp(_ journal: Journal) throws -> Double? {
        let row = try #require(try journal.loadDevices().first)
        return try JSONDecoder().decode(DeviceRecord.self, from: Data(row.state)).lastTimestamp
    }

    /// A newer record in a step wins over an older one waiting in the background, whichever
    /// the writer reaches first.
    @Test func aStepOvertakesOlderBackgroundRecords() async throws {
        let (alert, older, newer) = try alertAndRecords()
        try await withLocalBroker { broker in
            try await withTemporaryDirectory { directory in
                let journal = try Journal(path: directory + "/j.db")
                let client = try await broker.connectedClient()
                let pipeline = JournalPipeline(journal: journal, client: client, logger: Logger(label: "test"))
                pipeline.submitBackground([older])
                pipeline.submit(step(alert, record: newer))
                await pipeline.stop()
                #expect(try storedTimestamp(journal) == 101)
                #expect(try journal.history(device: "d", fence: nil, from: nil, to: nil, limit: 10).count == 1)
                await client.disconnect()
                try journal.close()
            }
        }
    }

    /// The writer checkpoints the WAL once it has published and nothing waits: the journal no
    /// longer does it inside a commit.
    @Test func theWriterCheckpointsWhenIdle() async throws {
        let (alert, _, newer) = try alertAndRecords()
        try await withLocalBroker { broker in
            try await withTemporaryDirectory { directory in
                let journal = try Journal(path: directory + "/j.db", checkpointFrames: 1, forcedCheckpointFrames: 1_000)
                let client = try await broker.connectedClient()
                let pipeline = JournalPipeline(journal: journal, client: client, logger: Logger(label: "test"))
                pipeline.submit(step(alert, record: newer))
                await pipeline.waitUntilDelivered()
                let deadline = ContinuousClock.now + .seconds(5)
                while journal.db.walFrames > 0, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(5))
                }
                #expect(journal.db.walFrames == 0)
                await pipeline.stop()
                await client.disconnect()
                try journal.close()
            }
        }
    }

    /// After `stop`, steps are written and published on the caller's thread at once: what the
    /// network thread still delivers during a clean stop is not left in a queue nobody reads.
    @Test func afterStopAStepIsJournaledAndPublishedAtOnce() async throws {
        let (alert, _, newer) = try alertAndRecords()
        try await withLocalBroker { broker in
            try await withTemporaryDirectory { directory in
                let journal = try Journal(path: directory + "/j.db")
                let collector = try await MessageCollector.start(options: broker.clientOptions(), filters: ["t/#"])
                let client = try await broker.connectedClient()
                let pipeline = JournalPipeline(journal: journal, client: client, logger: Logger(label: "test"))
                await pipeline.stop()
                pipeline.submit(step(alert, record: newer))
                // Journaled before submit returned; no writer thread is left to do it later.
                #expect(try journal.history(device: "d", fence: nil, from: nil, to: nil, limit: 10).map(\.event) == ["enter"])
                #expect(try storedTimestamp(journal) == 101)
                #expect(await collector.messages(matching: "t/alert", count: 1).count == 1)
                await collector.stop()
                await client.disconnect()
                try journal.close()
            }
        }
    }
}
