import GeofenceEngine
import Testing

@testable import FleetFenceJournal

@Suite("Held device records")
struct HeldRecordsTests {
    /// A record of `device` whose latest sample is at `time`.
    func record(_ device: String, at time: Double) throws -> DeviceRecord {
        var engine = GeofenceEngine(settings: GeofenceSettings(debounceSeconds: 0))
        var transitions: [Transition] = []
        engine.process(device: device, sample: PositionSample(lat: 49.3, lon: 8.6, timestamp: time), arrival: time, into: &transitions)
        return try #require(engine.deviceRecord(for: device))
    }

    @Test func oldestFirstAndAHeldDeviceKeepsItsPlaceWithItsNewerRecord() throws {
        var held = HeldRecords()
        for device in ["a", "b", "c"] { held.hold(try record(device, at: 1)) }
        held.hold(try record("a", at: 2))
        #expect(held.count == 3)
        let first = held.take(2)
        #expect(first.map(\.device) == ["a", "b"])
        #expect(first.first?.lastTimestamp == 2)
        held.drop("c")
        #expect(held.isEmpty)
        #expect(held.take(5).isEmpty)
    }

    /// A device dropped and held again goes no later than its first place; it is taken once.
    @Test func aDeviceDroppedAndHeldAgainIsTakenOnce() throws {
        var held = HeldRecords()
        for device in ["a", "b"] { held.hold(try record(device, at: 1)) }
        held.drop("a")
        held.hold(try record("a", at: 3))
        #expect(held.take(held.count).map(\.device) == ["a", "b"])
        #expect(held.isEmpty)
    }

    /// Taken in chunks past the point where the order is compacted, every device comes once, in order.
    @Test func manyChunksKeepTheOrder() throws {
        var held = HeldRecords()
        let devices = (0..<10_000).map { "d\($0)" }
        let sample = try record("x", at: 1)
        for device in devices {
            var copy = sample
            copy.device = device
            held.hold(copy)
        }
        var taken: [String] = []
        while !held.isEmpty {
            taken += held.take(1_500).map(\.device)
            // Devices keep coming meanwhile; each goes behind the ones already held.
            if taken.count == 6_000 {
                var late = sample
                late.device = "late"
                held.hold(late)
            }
        }
        #expect(taken == devices + ["late"])
    }
}
