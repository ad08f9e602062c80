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
        let first = held.take(2).records
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
        #expect(held.take(held.count).records.map(\.device) == ["a", "b"])
        #expect(held.isEmpty)
    }

    /// A place noted as `end` (a fold of the clock log ends there) is passed by `taken` once
    /// everything held before it is taken, counted from the start across the order's compaction,
    /// and at once when all of it was dropped instead.
    @Test func aNotedPlaceIsPassedOnceEverythingBeforeItIsTaken() throws {
        var held = HeldRecords()
        for index in 0..<5_000 { held.hold(clock("d\(index)", at: 1)) }
        let barrier = held.end
        held.hold(clock("later", at: 2))
        _ = held.take(4_500)
        // Past 4,096 taken, the order was compacted: the places still count from the start.
        #expect(held.taken == 4_500 && held.end == 5_001)
        #expect(held.taken < barrier)
        _ = held.take(500)
        #expect(held.taken >= barrier)
        _ = held.take(1)
        #expect(held.isEmpty && held.taken == held.end)

        // Everything held before the barrier dropped (newer records written meanwhile).
        held.hold(clock("x", at: 3))
        held.hold(clock("y", at: 3))
        let second = held.end
        held.drop("x")
        held.drop("y")
        #expect(held.taken >= second)
    }

    func clock(_ device: String, at time: Double) -> DeviceClock {
        DeviceClock(device: device, lastTimestamp: time, anchorTime: time, anchorLat: 49.3, anchorLon: 8.6, lastHeard: time)
    }

    /// A clock after a record is written beside it (the record's own times are older); a record
    /// after a clock replaces it (a record holds the latest sample too). Each device keeps one place.
    @Test func clocksAreHeldBesideRecordsAndARecordReplacesThem() throws {
        var held = HeldRecords()
        held.hold(try record("a", at: 1))
        held.hold(clock("b", at: 1))
        held.hold(clock("a", at: 2))
        held.hold(clock("c", at: 1))
        held.hold(try record("c", at: 3))
        held.hold(clock("b", at: 4))
        #expect(held.count == 3)
        let chunk = held.take(2)
        #expect(chunk.records.map(\.device) == ["a"])
        #expect(chunk.records.first?.lastTimestamp == 1)
        #expect(chunk.clocks.map(\.device) == ["a", "b"])
        #expect(chunk.clocks.map(\.lastTimestamp) == [2, 4])
        let rest = held.take(5)
        #expect(rest.records.map(\.device) == ["c"])
        #expect(rest.records.first?.lastTimestamp == 3)
        #expect(rest.clocks.isEmpty)
        #expect(held.isEmpty)
    }

    /// A device whose newer record is written drops what is held of it, its clock too.
    @Test func droppingADeviceDropsItsClock() throws {
        var held = HeldRecords()
        held.hold(try record("a", at: 1))
        held.hold(clock("a", at: 2))
        held.drop("a")
        #expect(held.isEmpty)
        #expect(held.take(5).isEmpty)
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
            taken += held.take(1_500).records.map(\.device)
            // Devices keep coming meanwhile; each goes behind the ones already held.
            if taken.count == 6_000 {
                var late = sample
                late.device = "late"
                held.hold(late)
            }
        }
        #expect(taken == devices + ["late"])
    }

    /// A record with `regions` regions (their array is what holding it allocates).
    func record(_ device: String, regions: Int) -> DeviceRecord {
        DeviceRecord(
            device: device, lastTimestamp: 1, anchorTime: 1, anchorLat: 49.3, anchorLon: 8.6, seq: 0, knownGeneration: 1,
            lastArrival: nil,
            regions: (0..<regions).map {
                DeviceRecord.Region(fence: "f\($0)", state: .inside, enteredAt: 1, dwellReported: false, pending: nil)
            })
    }

    /// `allocatedBytes` (docs/http.md "Memory"): the table, the order and the regions held, kept as
    /// records are held, replaced, dropped and taken, and nothing of the regions once all are taken.
    @Test func theBytesHeldFollowHoldsReplacementsDropsAndTakes() {
        var held = HeldRecords()
        let empty = held.allocatedBytes
        #expect(empty == 0)
        let regions = { (count: Int) in AllocatedBytes.array(self.record("x", regions: count).regions) }
        func regionBytes(_ held: HeldRecords) -> Int {
            #expect(held.allocatedBytes > held.recordBytes)  // the table and the order besides
            return held.recordBytes
        }
        held.hold(record("a", regions: 2))
        held.hold(record("b", regions: 0))
        #expect(regionBytes(held) == regions(2))
        held.hold(record("a", regions: 5))  // replaced
        #expect(regionBytes(held) == regions(5))
        held.hold(clock("a", at: 2))  // a clock beside the record keeps it
        held.hold(clock("c", at: 2))
        #expect(regionBytes(held) == regions(5))
        held.hold(record("c", regions: 1))  // a record after a clock
        #expect(regionBytes(held) == regions(5) + regions(1))
        held.drop("a")
        #expect(regionBytes(held) == regions(1))
        _ = held.take(1)
        #expect(regionBytes(held) == regions(1))  // "b" first: it held no regions
        _ = held.take(10)
        #expect(held.isEmpty && held.allocatedBytes == 0)
    }
}
