import FleetFenceCodecs
import Foundation
import GeofenceEngine
import FleetFenceJournal
import Logging
import Testing

@testable import FleetFenceService

/// A journal large enough that its fences and devices are decoded in several chunks on several
/// threads: what comes back must be what was journaled, each in its place.
@Suite("StateRestorer")
struct StateRestorerTests {
    static let fenceCount = 5_000
    static let deviceCount = 2_500

    private static func circle(_ id: String, radius: Double = 150) -> FenceDefinition {
        FenceDefinition(id: id, shape: .circle(center: Coordinate(lat: 49.0, lon: 8.0), radius: radius))
    }

    private static func fenceRow(_ definition: FenceDefinition, generation: UInt32, origin: JournalFenceRow.Origin)
        -> JournalFenceRow
    {
        JournalFenceRow(
            id: definition.id,
            record: JournalFenceRecord.encode(definition: FenceDefinitionEncoding.encode(definition), generation: generation),
            origin: origin)
    }

    /// Fences `f-0`... with generation index + 1, odd ones set at run time; one row that is not a
    /// record, one that no longer builds (generation 9,999); devices inside `f-<n>` with seq n.
    private static func journalWithEverything(at path: String) throws {
        let journal = try Journal(path: path)
        defer { try? journal.close() }
        var fences = (0..<fenceCount).map { index in
            fenceRow(circle("f-\(index)"), generation: UInt32(index + 1), origin: index % 2 == 0 ? .file : .runtime)
        }
        fences.append(JournalFenceRow(id: "unreadable", record: Array("not a record".utf8), origin: .file))
        // Past every ASCII id in byte order, in both lists.
        fences.append(fenceRow(circle("Ünterhof"), generation: 9_998, origin: .file))
        fences.append(fenceRow(circle("invalid", radius: -5), generation: 9_999, origin: .file))
        var fileFences: [ExactID: [UInt8]] = [:]
        for index in stride(from: 0, to: fenceCount, by: 2) {
            fileFences[ExactID("f-\(index)")] = FenceDefinitionEncoding.encode(circle("f-\(index)"))
        }
        fileFences["garbled"] = Array("{".utf8)
        fileFences["Ünterhof"] = FenceDefinitionEncoding.encode(circle("Ünterhof"))
        // The file's version of a fence replaced at run time since: not the row's definition.
        fileFences["f-1"] = FenceDefinitionEncoding.encode(circle("f-1", radius: 300))
        // An older entry of a fence the file set since (a journal before version 13 kept both):
        // the row says the file's version.
        fileFences["f-2"] = FenceDefinitionEncoding.encode(circle("f-2", radius: 999))
        // And one of the file's fence whose row no longer reads: not its entry either.
        fileFences["unreadable"] = FenceDefinitionEncoding.encode(circle("unreadable", radius: 700))
        var devices = (0..<deviceCount).map { index in
            let record = DeviceRecord(
                device: "truck-\(index)", lastTimestamp: 1_000 + Double(index), anchorTime: nil, anchorLat: nil,
                anchorLon: nil, seq: UInt64(index), knownGeneration: UInt32(fenceCount), lastArrival: nil,
                regions: [.init(fence: "f-\(index)", state: .inside, enteredAt: 500, dwellReported: false, pending: nil)])
            return JournalDeviceRow(device: record.device, state: DeviceRecordEncoding.encode(record))
        }
        devices.append(JournalDeviceRow(device: "broken", state: [0xFF, 0x00]))
        // An alert journaled after truck-3's row was last written: its seq must not go back to 3.
        let alert = AlertRecord(
            transition: Transition(
                event: .exit, device: "truck-3", fenceID: "f-3", fenceName: nil, at: 1_010, confirmedAt: 1_030, lat: 49.0,
                lon: 8.0, radiusMeters: nil, seq: 9, durationSeconds: 510),
            payload: Array("{}".utf8))
        try journal.write(alerts: [alert], devices: devices, fences: fences, fileFences: fileFences)
        // Latest-sample clocks written after the rows: truck-0's is newer than its record, truck-1's
        // older (a record written after it), and "ghost" has no record (a device forgotten).
        try journal.write(alerts: [], devices: [], clocks: [
            DeviceClock(device: "truck-0", lastTimestamp: 5_000, anchorTime: 4_990, anchorLat: 49.01, anchorLon: 8.02, lastHeard: 5_001),
            DeviceClock(device: "truck-1", lastTimestamp: 10, anchorTime: 10, anchorLat: 1, anchorLon: 1, lastHeard: 10),
            DeviceClock(device: "ghost", lastTimestamp: 10, anchorTime: nil, anchorLat: nil, anchorLon: nil, lastHeard: nil),
        ])
        // And in the clock log, not folded yet: truck-2's newer than its record, truck-0's older
        // than its folded clock, and another device without a record.
        var row: [UInt8] = []
        ClockLog.append(clocks: [
            DeviceClock(device: "truck-2", lastTimestamp: 6_000, anchorTime: 5_990, anchorLat: 49.02, anchorLon: 8.03, lastHeard: 6_001),
            DeviceClock(device: "truck-0", lastTimestamp: 4_000, anchorTime: 4_000, anchorLat: 1, anchorLon: 1, lastHeard: 4_000),
            DeviceClock(device: "ghost-2", lastTimestamp: 10, anchorTime: nil, anchorLat: nil, anchorLon: nil, lastHeard: nil),
        ], to: &row)
        try journal.write(alerts: [], devices: [], clockLog: row)
    }

    @Test func aLargeJournalComesBackWhole() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-restore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("journal.db").path
        try Self.journalWithEverything(at: path)

        let journal = try Journal(path: path)
        defer { try? journal.close() }
        // Slices of 1,000 devices: several of them, each decoded in chunks on several threads.
        let restored = try StateRestorer.restore(
            from: journal, settings: GeofenceSettings(), now: 2_000_000_000, logger: Logger(label: "test"),
            deviceSlice: 1_000)

        // Values are read first: a failed expectation on the engine itself would print all of it.
        let engine = restored.engine
        let (fenceCount, deviceCount, newest) = (engine.fenceCount, engine.deviceCount, engine.currentGeneration)
        let skipped = ["unreadable", "invalid"].filter { engine.fence(id: $0) != nil }
        #expect(fenceCount == Self.fenceCount + 1, "f-0... and Ünterhof")
        #expect(skipped.isEmpty)
        for index in [0, 1, 1_999, 2_000, 2_001, 4_999] {
            let generation = engine.fenceRecord(id: "f-\(index)")?.generation
            #expect(generation == UInt32(index + 1), "fence f-\(index)")
            #expect(restored.origins[ExactID("f-\(index)")] == (index % 2 == 0 ? .file : .runtime), "origin of f-\(index)")
        }
        #expect(restored.origins.count == Self.fenceCount + 1)
        // The fence that no longer builds still counts: a device must never see a generation again.
        #expect(newest >= 9_999)

        #expect(deviceCount == Self.deviceCount)
        for index in [0, 999, 1_000, 1_999, 2_000, 2_499] {
            let seq = engine.deviceRecord(for: "truck-\(index)")?.seq
            let inside = engine.insideFences(of: "truck-\(index)")
            #expect(seq == UInt64(index), "truck-\(index)")
            #expect(inside == ["f-\(index)"], "truck-\(index)")
        }
        let clocked = engine.deviceRecord(for: "truck-0")
        #expect(clocked?.lastTimestamp == 5_000, "a newer clock is the device's latest sample")
        #expect(clocked?.anchorTime == 4_990 && clocked?.anchorLat == 49.01 && clocked?.anchorLon == 8.02)
        #expect(clocked?.lastHeard == 5_001)
        #expect(clocked?.regions.map(\.fence) == ["f-0"], "the record's regions stay")
        let logged = engine.deviceRecord(for: "truck-2")
        #expect(logged?.lastTimestamp == 6_000, "a clock of the log, newer than the record")
        #expect(logged?.anchorTime == 5_990 && logged?.lastHeard == 6_001)
        // The one device whose clock only the log holds: the first fold must write it.
        #expect(restored.unfoldedClocks == [ExactID("truck-2")])
        let unclocked = engine.deviceRecord(for: "truck-1")
        #expect(unclocked?.lastTimestamp == 1_001, "an older clock changes nothing")
        #expect(unclocked?.anchorTime == nil)
        let seqBehindAnAlert = engine.deviceRecord(for: "truck-3")?.seq
        #expect(seqBehindAnAlert == 9, "seq never goes back behind a journaled alert")
        let broken = engine.deviceRecord(for: "broken")
        #expect(broken == nil)
        let ghost = engine.deviceRecord(for: "ghost")
        #expect(ghost == nil, "a clock without a record restores no device")

        // The file's rows (the even ones, Ünterhof, and the one that no longer builds: the file
        // set it so) and the entry of f-1, set at run time since; the garbled entry reads as none.
        #expect(restored.fileFences.count == Self.fenceCount / 2 + 3)
        #expect(restored.fileFences["f-4998"] == Self.circle("f-4998"))
        #expect(restored.fileFences["Ünterhof"] == Self.circle("Ünterhof"))
        #expect(restored.fileFences["f-1"] == Self.circle("f-1", radius: 300), "the file's version, not the row's")
        #expect(restored.fileFences["f-2"] == Self.circle("f-2"), "a fence the file set is its own entry")
        #expect(restored.fileFences["unreadable"] == nil, "its row unread, the file's version is applied again")
        #expect(restored.fileRecordComplete == false, "the garbled entry")
        // Unreadable: absent, so the file's version counts as changed and is applied again.
        #expect(restored.fileFences["garbled"] == nil)
    }

    /// The record's rows are read only for fences whose row is not the file's, found by walking
    /// both lists in id order; lists out of that order read a row for nothing, never skip one.
    @Test func theFileRecordsRowsAreReadOnlyBesideTheFilesOwnFences() {
        let fileRows = ["a", "b", "c", "é"].enumerated().map { index, id in (id: ExactID(id), index: index * 10) }
        func rows(_ ids: [String]) -> [(id: ExactID, definition: [UInt8])] { ids.map { (ExactID($0), Array("{}".utf8)) } }
        #expect(StateRestorer.entries(of: rows(["a", "bb", "c", "d", "é", "z"]), besides: fileRows) == [1, 3, 5])
        #expect(StateRestorer.entries(of: rows([]), besides: fileRows) == [])
        #expect(StateRestorer.entries(of: rows(["a", "b"]), besides: []) == [0, 1])
        // Out of order: every entry that has no such fence is still read.
        let shuffled = StateRestorer.entries(of: rows(["é", "x", "a", "c"]), besides: fileRows)
        #expect(shuffled.contains(1))
    }
}
