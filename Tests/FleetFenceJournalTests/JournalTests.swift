import FleetFenceCodecs
import Foundation
import GeofenceEngine
import Logging
import Synchronization
import Testing

@testable import FleetFenceJournal

private func transition(
    _ device: String, _ fence: String, _ event: String, at: Double, seq: Int64, reason: String? = nil
) -> JournalTransition {
    let alert = #"{"event":"\#(event)","device":"\#(device)","fence":"\#(fence)","seq":\#(seq),"name":"Lager Süd"}"#
    return JournalTransition(
        device: device, fence: fence, event: event, at: at, confirmedAt: at + 20, lat: 49.29, lon: 8.64, seq: seq,
        reason: reason, durationSeconds: event == "exit" ? 60 : nil, dwellSeconds: event == "dwell" ? 30 : nil,
        alertJSON: Array(alert.utf8))
}

extension JournalTransition {
    /// The alert this row was written from (these rows name no fence name or radius).
    var alert: AlertRecord {
        AlertRecord(
            transition: Transition(
                event: AlertEvent(rawValue: event)!, device: device, fenceID: fence, fenceName: nil, at: at,
                confirmedAt: confirmedAt, lat: lat, lon: lon, radiusMeters: nil, seq: UInt64(seq),
                dwellSeconds: dwellSeconds, durationSeconds: durationSeconds, reason: reason),
            payload: alertJSON)
    }
}

extension Journal {
    /// Writes rows given as they read back, so that each test compares what it wrote with what it reads.
    func write(
        transitions: [JournalTransition], devices: [JournalDeviceRow], removedDevices: [String] = [],
        fences: [JournalFenceRow] = [], removedFences: [String] = [], fileFences: [ExactID: [UInt8]] = [:],
        removedFileFences: [String] = []
    ) throws {
        try write(
            alerts: transitions.map(\.alert), devices: devices, removedDevices: removedDevices, fences: fences,
            removedFences: removedFences, fileFences: fileFences, removedFileFences: removedFileFences)
    }
}

extension Journal {
    /// Every alert of `device` (all devices: nil), in the history's order, as written (the row id
    /// and the name read back from the payload set aside).
    func rows(device: String? = nil, limit: Int = 10_000) throws -> [JournalTransition] {
        var query = EventQuery()
        query.devices = device.map { [$0] } ?? []
        query.limit = limit
        return try events(query).events.map { event in
            var written = event
            written.row = 0
            written.name = nil
            return written
        }
    }
}

@Suite("Journal")
struct JournalTests {
    @Test func writeAndLoadRoundTrip() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        let transitions = [
            transition("truck-1", "wdf01", "enter", at: 100, seq: 1),
            transition("truck-1", "wdf01", "exit", at: 200, seq: 2, reason: "fence_removed"),
        ]
        let devices = [
            JournalDeviceRow(device: "truck-2", state: [0, 1, 2, 255]),
            JournalDeviceRow(device: "truck-1", state: []),
        ]
        try journal.write(transitions: transitions, devices: devices)

        #expect(try journal.loadDevices() == devices.sorted { $0.device < $1.device })
        #expect(try journal.rows(limit: 10) == transitions)
        #expect(try journal.maxSeqPerDevice() == ["truck-1": 2])
    }

    @Test func alertBytesAreKeptExactly() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        var notText = transition("truck-1", "wdf01", "enter", at: 100, seq: 1)
        notText.alertJSON = [0x7B, 0xFF, 0x00, 0x7D]  // invalid UTF-8 with a NUL: stored as a blob
        let text = transition("truck-1", "wdf01", "exit", at: 200, seq: 2)
        try journal.write(transitions: [notText, text], devices: [])
        let stored = try journal.rows(device: "truck-1")
        #expect(stored.map(\.alertJSON) == [notText.alertJSON, text.alertJSON])
    }

    @Test func upsertReplacesAndRemoveDeletes() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        try journal.write(transitions: [], devices: [.init(device: "a", state: [1]), .init(device: "b", state: [1])])
        try journal.write(transitions: [], devices: [.init(device: "a", state: [2, 2])])
        #expect(try journal.loadDevices() == [.init(device: "a", state: [2, 2]), .init(device: "b", state: [1])])
        try journal.write(transitions: [], devices: [.init(device: "c", state: [3])], removedDevices: ["b", "zzz"])
        #expect(try journal.loadDevices() == [.init(device: "a", state: [2, 2]), .init(device: "c", state: [3])])
    }

    /// A device's clock is a row of its own: written again, it replaces the last; nulls come back
    /// as nil; removing the device removes its clock with its record.
    @Test func clocksAreUpsertedLoadedAndRemovedWithTheirDevice() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        let first = DeviceClock(device: "a", lastTimestamp: 10, anchorTime: 9, anchorLat: 49.5, anchorLon: 8.25, lastHeard: 11)
        let unanchored = DeviceClock(device: "b", lastTimestamp: 3, anchorTime: nil, anchorLat: nil, anchorLon: nil, lastHeard: nil)
        try journal.write(alerts: [], devices: [.init(device: "a", state: [1])], clocks: [first, unanchored])
        var newer = first
        newer.lastTimestamp = 20
        newer.anchorTime = 20
        try journal.write(alerts: [], devices: [], clocks: [newer])
        #expect(try journal.loadDeviceClocks().clocks == [ExactID("a"): newer, ExactID("b"): unanchored])
        try journal.write(alerts: [], devices: [], removedDevices: ["a"])
        #expect(try journal.loadDeviceClocks().clocks == [ExactID("b"): unanchored])
        #expect(try journal.loadDevices().isEmpty)
    }

    @Test func ownTracksTopicsAreKeptAndGoWithTheirDevice() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        let anna = OwnTracksTopic(device: "anna-phone", topic: "owntracks/anna/phone")
        let bob = OwnTracksTopic(device: "bob-pixel", topic: "owntracks/bob/pixel")
        try journal.write(alerts: [], devices: [], ownTracksTopics: [anna, bob])
        #expect(Set(try journal.loadOwnTracksTopics().map(\.device)) == ["anna-phone", "bob-pixel"])
        try journal.write(alerts: [], devices: [], removedDevices: ["anna-phone"])
        #expect(try journal.loadOwnTracksTopics() == [bob])
    }

    /// Thousands of rows in one transaction, and a second write that deletes most devices again.
    @Test func largeWritesLandWhole() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        let transitions = (0..<1_201).map { transition("truck-\($0 % 7)", "f", "enter", at: Double($0), seq: Int64($0)) }
        let devices = (0..<2_501).map { JournalDeviceRow(device: "truck-\($0)", state: [UInt8($0 % 256)]) }
        try journal.write(transitions: transitions, devices: devices)
        #expect(try journal.loadDevices().count == 2_501)
        #expect(try journal.rows(limit: 5_000) == transitions)
        #expect(try journal.maxSeqPerDevice()["truck-0"] == 1_197)

        try journal.write(transitions: [], devices: [], removedDevices: (1..<2_501).map { "truck-\($0)" })
        #expect(try journal.loadDevices() == [devices[0]])
    }

    /// The WAL file's size, 0 when there is none.
    private func walBytes(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
    }

    /// One WAL frame: a 24-byte header and a page (SQLite's default 4,096 bytes).
    private let walFrameBytes = 24 + 4_096

    /// Checkpoints are the journal's own: none until `checkpointIfDue` finds the threshold
    /// reached; then the checkpointer copies the WAL on its thread and flushes the file, the journal's connection
    /// copies what came meanwhile, and the WAL starts over instead of growing.
    @Test func checkpointIfDueWaitsForTheThresholdAndTheWALStartsOver() async throws {
        let directory = try JournalDirectory()
        // The forced checkpoint bounds the WAL when a loaded host slows the passes down.
        let journal = try Journal(path: directory.path(), checkpointFrames: 40, forcedCheckpointFrames: 400)
        defer { try? journal.close() }
        try journal.write(transitions: [], devices: [.init(device: "a", state: [1])])
        // A fresh journal's schema (webhook outbox included) and first write: some 20-odd frames.
        #expect(journal.db.walFrames > 0)
        #expect(!journal.checkpointIfDue())
        #expect(journal.checkpointPasses == 0)
        var finished = 0
        var written = 0
        for round in 0..<2_000 {
            let device = "truck-\(round % 300)"
            let before = journal.db.walFrames
            try journal.write(
                transitions: [transition(device, "f", "enter", at: Double(round), seq: Int64(round))],
                devices: [.init(device: device, state: Array(repeating: UInt8(round % 256), count: 200))])
            let frames = journal.db.walFrames
            written += frames > before ? frames - before : frames
            if journal.checkpointIfDue() {
                finished += 1
                // Only a WAL twice the threshold long is finished on this thread.
                #expect(frames >= 80)
                #expect(journal.db.walFrames == 0)
            }
            // Now and then a pause, as between a busy writer's bursts: a pass may then copy
            // everything itself.
            if round % 100 == 99 { try await Task.sleep(for: .milliseconds(20)) }
        }
        // On a loaded host the checkpointer's thread may miss the pauses: given time, it runs.
        let deadline = ContinuousClock.now + .seconds(5)
        var extra = 0
        while journal.checkpointPasses < 2, ContinuousClock.now < deadline {
            try journal.write(transitions: [], devices: [.init(device: "extra-\(extra % 100)", state: [1, 2])])
            if journal.checkpointIfDue() { finished += 1 }
            extra += 1
            try await Task.sleep(for: .milliseconds(1))
        }
        #expect(journal.checkpointPasses >= 2)
        // Each pass that copied frames is flushed by the checkpointer, not left to the finish.
        #expect(journal.checkpointFlushes >= 1)
        #expect(finished >= 1)
        // 2,000 commits wrote thousands of frames; started over, the file holds a few hundred.
        #expect(written >= 4_000)
        #expect(walBytes(directory.path()) <= 450 * walFrameBytes)
        #expect(try journal.loadDevices().count == 301 + min(extra, 100))  // and "a"
        #expect(try journal.rows(limit: 5_000).count == 2_000)
    }

    /// Under steady writes the passes and the writer's finishes keep the WAL below the forced
    /// checkpoint.
    @Test func theWALStaysBelowTheForcedCheckpointUnderSteadyWrites() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path(), checkpointFrames: 10, forcedCheckpointFrames: 40)
        defer { try? journal.close() }
        var largest = 0
        for round in 0..<1_000 {
            let devices = (0..<3).map { JournalDeviceRow(device: "truck-\((round * 3 + $0) % 500)", state: [UInt8(round % 256)]) }
            try journal.write(transitions: [], devices: devices)
            largest = max(largest, journal.db.walFrames)
            journal.checkpointIfDue()
        }
        #expect(largest < 48)
        #expect(walBytes(directory.path()) <= 48 * walFrameBytes)
        #expect(try journal.loadDevices().count == 500)
    }

    /// A writer that outruns the checkpointer (here its passes are stalled) checkpoints itself
    /// past the forced threshold; the pass that waited meanwhile is dropped, and later ones run.
    @Test func aWriterThatOutrunsTheCheckpointerCheckpointsItselfPastTheForcedThreshold() async throws {
        let directory = try JournalDirectory()
        let stalled = Atomic(true)
        let journal = try Journal(
            path: directory.path(), logger: Logger(label: "test"), checkpointFrames: 10, forcedCheckpointFrames: 40,
            beforeCheckpointPass: { while stalled.load(ordering: .relaxed) { usleep(1_000) } })
        defer {
            stalled.store(false, ordering: .relaxed)
            try? journal.close()
        }
        var forced = 0
        var largest = 0
        for round in 0..<300 {
            let devices = (0..<3).map { JournalDeviceRow(device: "truck-\((round * 3 + $0) % 500)", state: [UInt8(round % 256)]) }
            try journal.write(transitions: [], devices: devices)
            let frames = journal.db.walFrames
            largest = max(largest, frames)
            if journal.checkpointIfDue() {
                forced += 1
                #expect(frames >= 40)
                #expect(journal.db.walFrames == 0)
            }
        }
        #expect(forced >= 2)
        #expect(largest < 48)
        #expect(journal.checkpointPasses == 0)
        stalled.store(false, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(100))
        // Overtaken by the forced checkpoints, the stalled pass copied nothing.
        #expect(journal.checkpointPasses == 0)
        // Written only below the forced threshold, so that the pass, not the writer, copies the
        // frames however long a loaded host keeps the checkpointer's thread from running (the
        // whole suite on two cores once left it no pass in 5 s of writes the writer forced).
        let deadline = ContinuousClock.now + .seconds(30)
        var round = 0
        while journal.checkpointPasses == 0, ContinuousClock.now < deadline {
            if journal.db.walFrames < 20 {
                try journal.write(transitions: [], devices: [.init(device: "truck-\(round % 500)", state: [1, 2])])
                round += 1
            }
            journal.checkpointIfDue()
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(journal.checkpointPasses >= 1)
    }

    @Test func durableAcrossCloseAndReopen() throws {
        let directory = try JournalDirectory()
        let first = try Journal(path: directory.path())
        try first.write(
            transitions: [transition("truck-1", "wdf01", "enter", at: 100, seq: 41)],
            devices: [.init(device: "truck-1", state: [9, 9])])
        try first.close()
        try first.close()  // idempotent
        #expect(throws: JournalError.closed(path: directory.path())) { try first.loadDevices() }
        // A clean close leaves one self-contained file: the checkpointer's connection was
        // closed first, or the WAL file would stay.
        #expect(walBytes(directory.path()) == 0)
        #expect(!FileManager.default.fileExists(atPath: directory.path() + "-wal"))

        let second = try Journal(path: directory.path())
        defer { try? second.close() }
        #expect(try second.loadDevices() == [.init(device: "truck-1", state: [9, 9])])
        #expect(try second.maxSeqPerDevice() == ["truck-1": 41])
    }

    @Test func reopenAfterCrashRecoversCommittedWrites() throws {
        let directory = try JournalDirectory()
        let crashed = try Journal(path: directory.path())
        defer { try? crashed.close() }
        let written = transition("truck-1", "wdf01", "enter", at: 100, seq: 1)
        try crashed.write(transitions: [written], devices: [.init(device: "truck-1", state: [1])])

        // Without close(): the commit lives in the WAL only. A second journal on the same file sees it.
        let walSize = try FileManager.default.attributesOfItem(atPath: directory.path() + "-wal")[.size] as? Int ?? 0
        #expect(walSize > 0)
        let concurrent = try Journal(path: directory.path())
        #expect(try concurrent.loadDevices() == [.init(device: "truck-1", state: [1])])
        try concurrent.close()

        // What kill -9 leaves on disk: the main file and the WAL, no live process, no trustworthy shm.
        // Copied elsewhere and opened, SQLite must rebuild the index from the WAL and replay it.
        let copy = directory.path("after-crash.db")
        try FileManager.default.copyItem(atPath: directory.path(), toPath: copy)
        try FileManager.default.copyItem(atPath: directory.path() + "-wal", toPath: copy + "-wal")
        let recovered = try Journal(path: copy)
        defer { try? recovered.close() }
        #expect(try recovered.rows(device: "truck-1") == [written])
        #expect(try recovered.loadDevices() == [.init(device: "truck-1", state: [1])])
    }

    /// On the `at` as published, to the millisecond: an alert is found by its own `at`, from either
    /// side, however much finer the journal keeps it.
    @Test func eventsAreFoundByTheirPublishedAt() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        func fetch(_ change: (inout EventQuery) -> Void) throws -> [JournalTransition] {
            var query = EventQuery()
            change(&query)
            return try journal.events(query).events.map { var e = $0; e.row = 0; e.name = nil; return e }
        }
        let fine = [
            transition("truck-3", "gate", "enter", at: 500.123_4, seq: 1),  // published .123
            transition("truck-3", "gate", "exit", at: 500.123_6, seq: 2),  // published .124
        ]
        try journal.write(transitions: fine, devices: [])
        for (alert, published) in zip(fine, ["1970-01-01T00:08:20.123Z", "1970-01-01T00:08:20.124Z"]) {
            let at = try #require(EventQuery.time(published))
            #expect(try fetch { $0.since = at }.first == alert, "since its own at: \(published)")
            #expect(try !fetch { $0.until = at }.contains(alert), "until its own at: \(published)")
        }
        #expect(try fetch { $0.since = 500.123; $0.until = 500.124 } == [fine[0]])
    }

    @Test func eventsFilterOrderAndPage() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        let all = [
            transition("truck-1", "wdf01", "enter", at: 100, seq: 1),
            transition("truck-2", "wdf01", "enter", at: 100, seq: 1),
            transition("truck-1", "wdf01", "exit", at: 200, seq: 2),
            transition("truck-1", "depot", "enter", at: 300, seq: 3),
            transition("truck-2", "wdf01", "dwell", at: 400, seq: 2),
        ]
        // Written out of order: the history is ordered by at, then seq, then row.
        try journal.write(transitions: all.reversed(), devices: [])
        func fetch(_ change: (inout EventQuery) -> Void) throws -> [JournalTransition] {
            var query = EventQuery()
            change(&query)
            return try journal.events(query).events.map { var e = $0; e.row = 0; e.name = nil; return e }
        }
        #expect(try fetch { $0.devices = ["truck-1"] } == [all[0], all[2], all[3]])
        #expect(try fetch { $0.fences = ["wdf01"]; $0.events = ["enter", "dwell"] } == [all[1], all[0], all[4]])
        #expect(try fetch { $0.devices = ["truck-2", "nobody"]; $0.fences = ["wdf01"] } == [all[1], all[4]])
        // since inclusive, until exclusive, on at.
        #expect(try fetch { $0.since = 200; $0.until = 400 } == [all[2], all[3]])
        #expect(try fetch { $0.devices = ["nobody"] } == [])
        #expect(try journal.events(EventQuery()).events.first?.name == "Lager Süd")


        // Paged two at a time to the end: every row once, in order, the last page without a next.
        var query = EventQuery()
        query.limit = 2
        var seen: [JournalTransition] = []
        var pages = 0
        repeat {
            let page = try journal.events(query)
            seen += page.events
            pages += 1
            query.after = page.next
            if let next = page.next { #expect(EventCursor(next.description) == next) }
        } while query.after != nil
        #expect(pages == 3)
        #expect(seen.map { var e = $0; e.row = 0; e.name = nil; return e } == [all[1], all[0], all[2], all[3], all[4]])
        #expect(EventCursor("yesterday") == nil)
    }

    @Test func pruneDeletesTheOldestALittleAtATime() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        try journal.write(transitions: (0..<10).map { transition("t", "f", "enter", at: Double($0), seq: Int64($0)) }, devices: [])
        #expect(try journal.prune(before: 7, limit: 3) == 3)
        #expect(try journal.rows().map(\.seq) == [3, 4, 5, 6, 7, 8, 9])
        #expect(try journal.prune(before: 7, limit: 100) == 4)
        #expect(try journal.prune(before: 7, limit: 100) == 0)
        #expect(try journal.rows().map(\.seq) == [7, 8, 9])
    }

    @Test func aReaderReadsWhileTheWriterHoldsTheFile() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        try journal.write(transitions: [transition("t", "f", "enter", at: 1, seq: 1)], devices: [])
        let reader = try Journal(readingOnly: directory.path())
        defer { try? reader.close() }
        try journal.write(transitions: [transition("t", "f", "exit", at: 2, seq: 2)], devices: [])
        #expect(try reader.events(EventQuery()).events.map(\.seq) == [1, 2])
        #expect(throws: (any Error).self) { try reader.write(alerts: [transition("t", "f", "exit", at: 3, seq: 3).alert], devices: []) }
    }

    @Test func aDamagedOrUnwritableJournalIsRefusedAtStart() throws {
        let directory = try JournalDirectory()
        let garbage = directory.path("garbage.db")
        try Data(repeating: 0x42, count: 8192).write(to: URL(fileURLWithPath: garbage))
        #expect {
            _ = try Journal(path: garbage)
        } throws: { error in
            if case .damaged = error as? JournalError { return true }
            return false
        }
    }

    /// A journal deleted or replaced under the service is written to no more: its commits would
    /// vanish, and the next start would number alerts from 1 again.
    @Test func aFileDeletedOrReplacedWhileOpenFailsTheNextWrite() throws {
        let directory = try JournalDirectory()
        for replace in [false, true] {
            let path = directory.path(replace ? "replaced.db" : "deleted.db")
            let journal = try Journal(path: path)
            try journal.write(transitions: [transition("a", "depot", "enter", at: 1, seq: 1)], devices: [])
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            if replace { try Data("not the journal".utf8).write(to: URL(fileURLWithPath: path)) }
            #expect {
                try journal.write(transitions: [transition("a", "depot", "exit", at: 2, seq: 2)], devices: [])
            } throws: { error in
                guard case let .fileGone(_, reason) = error as? JournalError else { return false }
                return reason.contains(replace ? "replaced" : "deleted")
            }
            try? journal.close()
        }
    }

    @Test func concurrentUseFromManyThreads() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        let threads = 8, writesPerThread = 40
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let device = "truck-\(thread)"
            for seq in 1...writesPerThread {
                do {
                    try journal.write(
                        transitions: [transition(device, "f", "enter", at: Double(seq), seq: Int64(seq))],
                        devices: [.init(device: device, state: [UInt8(seq)])])
                    if seq % 10 == 0 { _ = try journal.loadDevices() }
                } catch {
                    Issue.record("write failed: \(error)")
                }
            }
        }
        let expected = Dictionary(uniqueKeysWithValues: (0..<threads).map { (ExactID("truck-\($0)"), Int64(writesPerThread)) })
        #expect(try journal.maxSeqPerDevice() == expected)
        #expect(try journal.loadDevices().map(\.state) == Array(repeating: [UInt8(writesPerThread)], count: threads))
        #expect(
            try journal.rows(limit: 10_000).count
                == threads * writesPerThread)
    }

    /// Within one write, removals apply before upserts: a fence removed and set again in one
    /// step (a reload that replaces what run time deleted) is kept, in both fence tables.
    @Test func removalsApplyBeforeUpserts() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        let first = JournalFenceRow(id: "x", record: Array(#"{"v":1}"#.utf8), origin: .file)
        try journal.write(transitions: [], devices: [], fences: [first], fileFences: ["x": Array("v1".utf8)])
        let second = JournalFenceRow(id: "x", record: Array(#"{"v":2}"#.utf8), origin: .file)
        try journal.write(
            transitions: [], devices: [], fences: [second], removedFences: ["x"], fileFences: ["x": Array("v2".utf8)],
            removedFileFences: ["x"])
        #expect(try journal.loadFences() == [second])
        let file = try journal.loadFileFences()
        #expect(file.map(\.id) == [ExactID("x")] && file.map(\.definition) == [Array("v2".utf8)])
    }

    @Test func newerSchemaIsRefused() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        try journal.db.run("PRAGMA user_version = 99")
        try journal.close()
        #expect(throws: JournalError.schemaTooNew(path: directory.path(), found: 99, supported: JournalSchema.version)) {
            try Journal(path: directory.path())
        }
    }

    /// Version 2 kept definitions in Swift's Codable layout; version 3 rewrites them in the
    /// plain form of a `set` payload, and the restore reads them back equal.
    @Test func version2FencesAreRewrittenInThePlainForm() throws {
        let directory = try JournalDirectory()
        let circle = FenceDefinition(
            id: "wdf01", name: "WDF01", shape: .circle(center: Coordinate(lat: 49.2931, lon: 8.6413), radius: 200),
            notify: [.enter], dwellSeconds: 60)
        let polygon = FenceDefinition(
            id: "yard", shape: .polygon([Coordinate(lat: 49, lon: 8), Coordinate(lat: 49, lon: 8.1), Coordinate(lat: 49.1, lon: 8.05)]))
        let encoder = JSONEncoder()
        do {
            let journal = try Journal(path: directory.path())
            // The yard replaced at run time: its file version is a row of the record of its own.
            for (definition, generation, origin) in [(circle, UInt32(3), "file"), (polygon, UInt32(7), "runtime")] {
                let record = try encoder.encode(FenceRecord(definition: definition, generation: generation))
                try journal.db.run(
                    "INSERT INTO fences (id, record, origin, updated_at) VALUES (?, ?, ?, 0)",
                    [.text(definition.id), .blob(Array(record)), .text(origin)])
                try journal.db.run(
                    "INSERT INTO file_fences (id, definition) VALUES (?, ?)",
                    [.text(definition.id), .blob(Array(try encoder.encode(definition)))])
            }
            try journal.db.run("INSERT INTO fences (id, record, origin, updated_at) VALUES ('junk', x'7b', 'file', 0)")
            // As version 2 wrote it, spelled out: the test must not depend on today's Codable either.
            let literal = #"{"definition":{"id":"lit","shape":{"polygon":{"_0":[{"lat":49,"lon":8},{"lat":49,"lon":8.1},{"lat":49.1,"lon":8.05}]}},"notify":["exit"],"dwellSeconds":30},"generation":9}"#
            try journal.db.run(
                "INSERT INTO fences (id, record, origin, updated_at) VALUES ('lit', ?, 'runtime', 0)", [.blob(Array(literal.utf8))])
            try journal.db.run("PRAGMA user_version = 2")
            try journal.close()
        }
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        let rows = Dictionary(uniqueKeysWithValues: try journal.loadFences().map { ($0.id, $0.record) })
        #expect(try JournalFenceRecord.decode(rows["wdf01"] ?? []) == FenceRecord(definition: circle, generation: 3))
        #expect(try JournalFenceRecord.decode(rows["yard"] ?? []) == FenceRecord(definition: polygon, generation: 7))
        #expect(String(decoding: rows["yard"] ?? [], as: UTF8.self)
            == #"{"definition":{"id":"yard","polygon":[[8,49],[8.1,49],[8.05,49.1]]},"generation":7}"#)
        #expect(try JournalFenceRecord.decode(rows["lit"] ?? []) == FenceRecord(
            definition: FenceDefinition(id: "lit", shape: polygon.shape, notify: [.exit], dwellSeconds: 30), generation: 9))
        // An unreadable row is left as it was, for the restore to skip with a warning.
        #expect(rows["junk"] == Array("{".utf8))
        let file = Dictionary(uniqueKeysWithValues: try journal.loadFileFences().map { ($0.id.string, $0.definition) })
        #expect(file["wdf01"] == nil, "since version 13 a fence the file set is its own entry")
        #expect(try FenceDecoder.decodeDefinition(file["yard"] ?? [], idFromTopic: nil) == polygon)
    }

    /// Version 12 kept the file's version of every fence of the file beside its row; version 13
    /// keeps it only where the row is not the file's.
    @Test func version12FileRecordKeepsOnlyWhatTheFenceRowsDoNotSay() throws {
        let directory = try JournalDirectory()
        func row(_ id: String, origin: JournalFenceRow.Origin) -> JournalFenceRow {
            JournalFenceRow(id: id, record: JournalFenceRecord.encode(definition: Array("{}".utf8), generation: 1), origin: origin)
        }
        do {
            let journal = try Journal(path: directory.path())
            try journal.write(
                alerts: [], devices: [], fences: [row("kept", origin: .file), row("replaced", origin: .runtime)],
                fileFences: ["kept": Array("k".utf8), "replaced": Array("r".utf8), "deleted": Array("d".utf8)])
            try journal.db.run("PRAGMA user_version = 12")
            try journal.close()
        }
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        let file = try journal.loadFileFences()
        #expect(file.map(\.id.string) == ["deleted", "replaced"])
        #expect(file.map(\.definition) == [Array("d".utf8), Array("r".utf8)])
        #expect(try journal.loadFences().count == 2, "the fence rows stay")
    }
}

extension JournalTests {
    /// Version 6 kept device rows in a table by row id, behind an index of the ids; version 7
    /// stores them by id (WITHOUT ROWID), every row carried over.
    @Test func version6DevicesAreStoredByIdWithEveryRowKept() throws {
        let directory = try JournalDirectory()
        let devices = (0..<500).map { JournalDeviceRow(device: "truck-\($0)", state: [UInt8(truncatingIfNeeded: $0), 7]) }
        do {
            let journal = try Journal(path: directory.path())
            try journal.db.run("DROP TABLE devices")
            try journal.db.run("CREATE TABLE devices (device TEXT PRIMARY KEY, state BLOB NOT NULL, updated_at REAL NOT NULL)")
            // First seen in another order than the ids'.
            for row in devices.reversed() {
                try journal.db.run("INSERT INTO devices (device, state, updated_at) VALUES (?, ?, 5)", [.text(row.device), .blob(row.state)])
            }
            try journal.db.run("PRAGMA user_version = 6")
            try journal.close()
        }
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        let schema = try journal.db.run("SELECT sql FROM sqlite_master WHERE name = 'devices'").first?.column("sql")?.stringValue
        #expect(schema?.contains("WITHOUT ROWID") == true, "\(schema ?? "no table")")
        #expect(try journal.db.run("SELECT name FROM sqlite_master WHERE name = 'devices_by_id'").isEmpty)
        let loaded = try journal.loadDevices()
        #expect(loaded.map(\.device) == devices.map(\.device).sorted { ExactID($0) < ExactID($1) })
        #expect(Dictionary(uniqueKeysWithValues: loaded.map { ($0.device, $0.state) }) == Dictionary(uniqueKeysWithValues: devices.map { ($0.device, $0.state) }))
        #expect(loaded.allSatisfy { $0.updatedAt == 5 })
        // Written and removed as before.
        try journal.write(transitions: [], devices: [.init(device: "truck-1", state: [9])], removedDevices: ["truck-2"])
        let after = Dictionary(uniqueKeysWithValues: try journal.loadDevices().map { ($0.device, $0.state) })
        #expect(after["truck-1"] == [9] && after["truck-2"] == nil && after.count == 499)
    }

    /// Version 7 had no clocks: version 8 adds their table and keeps every device row.
    @Test func version7GainsTheClocksTable() throws {
        let directory = try JournalDirectory()
        do {
            let journal = try Journal(path: directory.path())
            try journal.write(alerts: [], devices: [.init(device: "truck-1", state: [7])])
            try journal.db.run("DROP TABLE device_clocks")
            try journal.db.run("PRAGMA user_version = 7")
            try journal.close()
        }
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        #expect(try journal.loadDevices() == [.init(device: "truck-1", state: [7])])
        #expect(try journal.loadDeviceClocks().clocks.isEmpty)
        let clock = DeviceClock(device: "truck-1", lastTimestamp: 1, anchorTime: 1, anchorLat: 0, anchorLon: 0, lastHeard: 1)
        try journal.write(alerts: [], devices: [], clocks: [clock])
        #expect(try journal.loadDeviceClocks().clocks == [ExactID("truck-1"): clock])
    }

    /// Version 11 kept `journal_meta` by row id; version 12 stores it by key (WITHOUT ROWID), every
    /// mark carried over and written as before.
    @Test func version11MetaIsStoredByKeyWithEveryMarkKept() throws {
        let directory = try JournalDirectory()
        let mark = PublishedMark(alertID: 42, time: 7)
        let marks: [String: String]
        do {
            let journal = try Journal(path: directory.path())
            try journal.write(alerts: [], devices: [], mark: mark)
            try journal.db.run("INSERT INTO journal_meta (key, value) VALUES ('other', 'kept')")
            marks = Dictionary(uniqueKeysWithValues: try journal.db.run("SELECT key, value FROM journal_meta").map {
                ($0.column("key")!.stringValue!, $0.column("value")!.stringValue!)
            })
            try journal.db.run("DROP TABLE journal_meta")
            try journal.db.run("CREATE TABLE journal_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            for (key, value) in marks { try journal.db.run("INSERT INTO journal_meta (key, value) VALUES (?, ?)", [.text(key), .text(value)]) }
            try journal.db.run("PRAGMA user_version = 11")
            try journal.close()
        }
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        let schema = try journal.db.run("SELECT sql FROM sqlite_master WHERE name = 'journal_meta'").first?.column("sql")?.stringValue
        #expect(schema?.contains("WITHOUT ROWID") == true, "\(schema ?? "no table")")
        #expect(try journal.db.run("SELECT name FROM sqlite_master WHERE name = 'journal_meta_by_key'").isEmpty)
        #expect(try journal.metaValue("other") == "kept")
        #expect(try journal.metaValue(PublishedMark.key) == marks[PublishedMark.key])
        // Replaced as before.
        try journal.write(alerts: [], devices: [], mark: PublishedMark(alertID: 43, time: 8))
        #expect(try journal.metaValue(PublishedMark.key).flatMap(PublishedMark.init(encoded:))?.alertID == 43)
    }

    /// A file system without room for the WAL to reach its forced checkpoint is refused at start
    /// (docs/operations.md "Limits and failures"): asked here for more than any disk of this
    /// machine holds, as a full disk would be.
    @Test func aDiskWithoutRoomForTheWriteAheadLogIsRefusedAtStart() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "journal-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appending(path: "journal.db").path()
        #expect {
            _ = try Journal(path: path, forcedCheckpointFrames: 1 << 40)
        } throws: { error in
            guard case .notWritable(_, let reason) = error as? JournalError else { return false }
            return reason.contains("free") && reason.contains("write-ahead log")
        }
        // Room enough: the same file opens.
        let journal = try Journal(path: path)
        try journal.close()
    }
}

/// The history as CSV says what the alerts say: durations rounded to milliseconds, as published.
@Test func csvDurationsAreTheAlertsRounding() {
    var exit = transition("truck-1", "depot", "exit", at: 100, seq: 2)
    exit.durationSeconds = 20.899320363998413
    var dwell = transition("truck-1", "depot", "dwell", at: 50, seq: 1)
    dwell.dwellSeconds = 300.0004999
    let rows = String(decoding: EventsCSV.encode([dwell, exit]), as: UTF8.self).split(separator: "\r\n")
    #expect(rows.count == 3)
    #expect(rows[1].split(separator: ",", omittingEmptySubsequences: false)[9] == "300")
    #expect(rows[2].split(separator: ",", omittingEmptySubsequences: false)[10] == "20.899")
}
