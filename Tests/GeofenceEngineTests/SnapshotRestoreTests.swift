import Foundation
import Testing

@testable import GeofenceEngine

/// Rule 5: state survives a restart, through a snapshot (in memory and as JSON).
@Suite("Snapshot and restore")
struct SnapshotRestoreTests {
    static let fences = [circle("wdf01", radius: 200), square("yard", around: destination(depot, bearing: 90, meters: 1_000), half: 150)]

    static func jsonRoundTrip(_ snapshot: EngineSnapshot) throws -> EngineSnapshot {
        try JSONDecoder().decode(EngineSnapshot.self, from: JSONEncoder().encode(snapshot))
    }

    /// East from 420 m west of the depot through both fences: enter/exit wdf01, enter/exit yard.
    static let path = driveThrough(startingAt: 420, speed: 10, interval: 5, count: 60)

    @Test(arguments: [false, true])
    func snapshotMidDebounceRestoredContinuesWithTheSameAlerts(throughJSON: Bool) throws {
        var whole = try Harness(Self.fences)
        whole.feed(Self.path)
        #expect(events(whole.alerts) == ["enter wdf01", "exit wdf01", "enter yard", "exit yard"])

        var before = try Harness(Self.fences)
        before.feed(Array(Self.path[0...6]))  // t0 was sample 5: mid-debounce
        #expect(before.engine.pendingChange(of: "truck-7", in: "wdf01")?.evidenceSince == T0 + 25)
        var snapshot = before.engine.snapshot()
        if throughJSON { snapshot = try Self.jsonRoundTrip(snapshot) }
        #expect(snapshot == before.engine.snapshot())

        var after = Harness(engine: GeofenceEngine(settings: GeofenceSettings(), restoring: snapshot))
        #expect(after.engine.pendingChange(of: "truck-7", in: "wdf01") == before.engine.pendingChange(of: "truck-7", in: "wdf01"))
        after.feed(Array(Self.path[7...]))
        #expect(before.alerts + after.alerts == whole.alerts)
    }

    @Test func restoreDeviceByDeviceIntoAnEngineWithTheSameFences() throws {
        var whole = try Harness(Self.fences)
        whole.feed(Self.path)
        var before = try Harness(Self.fences)
        before.feed(Array(Self.path[0...20]))
        var engine = GeofenceEngine()
        engine.restoreFences(before.engine.fenceRecords(), generation: before.engine.currentGeneration)
        engine.restore(try #require(before.engine.deviceRecord(for: "truck-7")))
        var after = Harness(engine: engine)
        after.feed(Array(Self.path[21...]))
        #expect(before.alerts + after.alerts == whole.alerts)
    }

    @Test func seqContinuesAcrossRestore() throws {
        var h = try Harness(Self.fences)
        h.feed(Array(Self.path[0...22]))  // enter and exit wdf01, not yet at the yard
        #expect(h.alerts.map(\.seq) == [1, 2])
        #expect(h.engine.insideFences(of: "truck-7").isEmpty)  // nothing in the sparse record, seq still kept
        var restored = Harness(engine: GeofenceEngine(settings: GeofenceSettings(), restoring: try Self.jsonRoundTrip(h.engine.snapshot())))
        #expect(restored.engine.seq(of: "truck-7") == 2)
        restored.feed(Array(Self.path[23...]))
        #expect(restored.alerts.map(\.seq) == [3, 4])
    }

    @Test func enterIsNotRepeatedAfterRestartAndAnExitWhileDownIsAlertedWhenBack() throws {
        var h = try Harness(Self.fences)
        h.feed(eastWest(stride(from: -420.0, through: -20, by: 50).map { $0 } + [0, 0, 0]))
        #expect(events(h.alerts) == ["enter wdf01"])
        var restored = Harness(engine: GeofenceEngine(settings: GeofenceSettings(), restoring: try Self.jsonRoundTrip(h.engine.snapshot())))
        #expect(restored.engine.insideFences(of: "truck-7") == ["wdf01"])
        // Back an hour later, 600 m north: it left while the service was down.
        let away = destination(depot, bearing: 0, meters: 600)
        restored.feed([sample(away, t: T0 + 3_600), sample(away, t: T0 + 3_610), sample(away, t: T0 + 3_620)])
        #expect(events(restored.alerts) == ["exit wdf01"])
        #expect(restored.alerts.first?.confirmedAt == T0 + 3_620)
        #expect(restored.alerts.first?.seq == 2)

        // And a device still inside after the restart gets nothing.
        var still = Harness(engine: GeofenceEngine(settings: GeofenceSettings(), restoring: h.engine.snapshot()))
        still.feed(eastWest(Array(repeating: 0, count: 20), from: T0 + 3_600))
        #expect(still.alerts.isEmpty)
    }

    @Test func silentConfirmationResumesAfterRestore() throws {
        var h = try Harness(Self.fences)
        h.feed(Array(Self.path[0...6]), lag: 0.5)  // pending enter, t0 = +25
        var restored = Harness(engine: GeofenceEngine(settings: GeofenceSettings(), restoring: try Self.jsonRoundTrip(h.engine.snapshot())))
        let lastArrival = Self.path[6].timestamp + 0.5
        #expect(restored.tick(lastArrival + 19).isEmpty)
        let enter = try #require(restored.tick(lastArrival + 20).first)
        #expect(enter.event == .enter)
        #expect(enter.confirmedAt == T0 + 45)
        #expect(enter.lat == Self.path[6].lat && enter.lon == Self.path[6].lon)
    }

    @Test func restoredDevicesKnowWhichFencesAreNewToThem() throws {
        // Seen 5 km west of the depot before the snapshot: known outside wdf01.
        let far = destination(depot, bearing: 270, meters: 5_000)
        var h = try Harness(Self.fences)
        h.feed([sample(far, t: T0)])
        var restored = Harness(engine: GeofenceEngine(settings: GeofenceSettings(), restoring: try Self.jsonRoundTrip(h.engine.snapshot())))
        #expect(restored.engine.state(of: "truck-7", in: "wdf01") == .outside)
        // A fence added after the restore, right where the device is: first sight there, silent.
        try restored.engine.setFence(circle("new", at: far, radius: 300))
        #expect(restored.engine.state(of: "truck-7", in: "new") == .unknown)
        restored.feed([sample(far, t: T0 + 10)])
        #expect(restored.engine.state(of: "truck-7", in: "new") == .inside)
        #expect(restored.alerts.isEmpty)
        // Then it drives to the depot: it leaves "new" and enters wdf01, both alerted.
        restored.feed(Array(Self.path[0...12]).map { PositionSample(lat: $0.lat, lon: $0.lon, timestamp: $0.timestamp + 100) })
        #expect(events(restored.alerts) == ["exit new", "enter wdf01"])
    }

    @Test func restoreDropsRegionsOfFencesNoLongerHeld() throws {
        var h = try Harness(Self.fences)
        h.feed([sample(depot, t: T0)])
        var snapshot = h.engine.snapshot()
        snapshot.fences.removeAll { $0.definition.id == "wdf01" }
        let restored = GeofenceEngine(settings: GeofenceSettings(), restoring: snapshot)
        #expect(restored.insideFences(of: "truck-7").isEmpty)
        #expect(restored.fenceCount == 1)
    }

    @Test func snapshotOfAnEngineWithARegisteredButNeverSeenDeviceSurvivesJSON() throws {
        var engine = GeofenceEngine()
        try engine.setFence(circle("f", radius: 200))
        _ = engine.handle(for: "truck-new")  // registered, no sample accepted yet
        let snapshot = engine.snapshot()
        let restored = try Self.jsonRoundTrip(snapshot)
        #expect(restored.devices.count == 1)
    }
}

@Suite("Snapshot and restore: ordering")
struct SnapshotOrderingTests {
    /// Two fences with the same boundary, added "zulu" first: a device enters both in one sample.
    /// Restored from a snapshot taken before, the engine must number the two alerts as the
    /// uninterrupted one does.
    @Test func simultaneousAlertsKeepTheirOrderAndSeqAcrossRestore() throws {
        let fences = [circle("zulu", radius: 200), circle("alpha", radius: 200)]
        let path = driveThrough(startingAt: 420, speed: 10, interval: 5, count: 12)
        var whole = try Harness(fences)
        whole.feed(path)
        #expect(whole.alerts.count == 2)

        var before = try Harness(fences)
        before.feed(Array(path[0...1]))  // known outside both, nothing pending
        var after = Harness(engine: GeofenceEngine(settings: GeofenceSettings(), restoring: before.engine.snapshot()))
        after.feed(Array(path[2...]))
        #expect(after.alerts.map(\.fenceID) == whole.alerts.map(\.fenceID))
        #expect(after.alerts == whole.alerts)
    }
}

/// A device's clock (docs/operations.md "Journal"): the latest sample's times and place, journaled
/// apart from its record and applied over an older record at restore.
@Suite("Device clock")
struct DeviceClockTests {
    @Test func theClockIsTheRecordsLatestSample() throws {
        var h = try Harness(SnapshotRestoreTests.fences)
        h.feed(Array(SnapshotRestoreTests.path[0...9]))
        let record = try #require(h.engine.deviceRecord(for: "truck-7"))
        let clock = try #require(h.engine.deviceClock(for: "truck-7"))
        #expect(clock.device == "truck-7")
        #expect(clock.lastTimestamp == record.lastTimestamp)
        #expect(clock.anchorTime == record.anchorTime && clock.anchorLat == record.anchorLat && clock.anchorLon == record.anchorLon)
        #expect(clock.lastHeard == record.lastHeard)
        #expect(h.engine.deviceClock(for: "nobody") == nil)
    }

    /// A record written before the last samples, with the clock written after them: restored, the
    /// device's latest sample is the clock's, so a sample between the two is old news (rule 4),
    /// and its regions are the record's.
    @Test func aNewerClockMovesTheLatestSampleAndAnOlderOneNothing() throws {
        var h = try Harness(SnapshotRestoreTests.fences)
        h.feed(Array(SnapshotRestoreTests.path[0...3]))
        let record = try #require(h.engine.deviceRecord(for: "truck-7"))
        h.feed(Array(SnapshotRestoreTests.path[4...5]))
        let clock = try #require(h.engine.deviceClock(for: "truck-7"))
        let applied = clock.applied(to: record)
        #expect(applied.lastTimestamp == SnapshotRestoreTests.path[5].timestamp)
        #expect(applied.anchorTime == SnapshotRestoreTests.path[5].timestamp)
        #expect(applied.anchorLat == SnapshotRestoreTests.path[5].lat && applied.anchorLon == SnapshotRestoreTests.path[5].lon)
        #expect(applied.regions == record.regions && applied.seq == record.seq)

        var older = clock
        older.lastTimestamp = try #require(record.lastTimestamp) - 1
        #expect(older.applied(to: record) == record)

        var restored = Harness(engine: GeofenceEngine(settings: GeofenceSettings()))
        restored.engine.restore(applied)
        let outcome = restored.engine.process(
            device: "truck-7", sample: SnapshotRestoreTests.path[4], arrival: SnapshotRestoreTests.path[4].timestamp,
            into: &restored.alerts)
        #expect(outcome.status != .accepted, "older than the clock's latest sample")
    }
}
