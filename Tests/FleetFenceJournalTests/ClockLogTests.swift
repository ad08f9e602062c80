import Foundation
import GeofenceEngine
import Testing

@testable import FleetFenceJournal

/// The clock log (docs/operations.md "Journal"): each second's latest-sample clocks packed into a
/// row, folded into `device_clocks` every so often. What a restart reads from the two together.
@Suite("Clock log")
struct ClockLogTests {
    private func clock(_ device: String, _ time: Double, heard: Double? = nil) -> DeviceClock {
        DeviceClock(device: device, lastTimestamp: time, anchorTime: time - 1, anchorLat: 49.1, anchorLon: 8.7, lastHeard: heard)
    }

    private func decoded(_ row: [UInt8]) throws -> [ClockLog.Entry] {
        var entries: [ClockLog.Entry] = []
        try ClockLog.decode(row) { entries.append($0) }
        return entries
    }

    /// Every field comes back bit for bit, a missing anchor or last-heard time as nil, ids as their
    /// exact bytes (a decomposed "é", a 256-byte id), tombstones before the clocks of their step.
    @Test func entriesComeBackExactlyAndInOrder() throws {
        let exact = DeviceClock(
            device: "truck-1", lastTimestamp: 1_764_000_000.123456, anchorTime: 1_764_000_000.1, anchorLat: 49.123456789012,
            anchorLon: -0.000000001, lastHeard: 1_764_000_001.5)
        let unanchored = DeviceClock(device: "caf\u{65}\u{301}", lastTimestamp: 3, anchorTime: nil, anchorLat: nil, anchorLon: nil, lastHeard: nil)
        let long = clock(String(repeating: "x", count: 256), 7, heard: 8)
        var row: [UInt8] = []
        ClockLog.append(forgotten: ["gone"], clocks: [exact, unanchored], to: &row)
        ClockLog.append(forgotten: ["truck-1"], clocks: [long], to: &row)
        #expect(try decoded(row) == [
            .forgotten("gone"), .clock(exact), .clock(unanchored), .forgotten("truck-1"), .clock(long),
        ])
        if case let .clock(back) = try decoded(row)[2] {
            #expect(Array(back.device.utf8) == Array("caf\u{65}\u{301}".utf8))
        }
    }

    /// Nothing to log adds nothing, not even the format byte: no row is written for it.
    @Test func nothingToLogIsNoRow() {
        var row: [UInt8] = []
        ClockLog.append(forgotten: [], clocks: [], to: &row)
        #expect(row.isEmpty)
    }

    /// A row cut short, of another format, or with an unknown tag is refused, never read as
    /// something else.
    @Test func malformedRowsAreRefused() throws {
        var row: [UInt8] = []
        ClockLog.append(clocks: [clock("a", 1, heard: 2)], to: &row)
        for cut in 2..<row.count {
            #expect(throws: (any Error).self) { try decoded(Array(row.prefix(cut))) }
        }
        var otherFormat = row
        otherFormat[0] = 9
        #expect(throws: (any Error).self) { try decoded(otherFormat) }
        var unknownTag = row
        unknownTag[1] = 0x41
        #expect(throws: (any Error).self) { try decoded(unknownTag) }
        #expect(try decoded([ClockLog.format]).isEmpty)
    }

    private func log(_ clocks: [DeviceClock], forgotten: [String] = [], in journal: Journal) throws {
        var row: [UInt8] = []
        ClockLog.append(forgotten: forgotten, clocks: clocks, to: &row)
        try journal.write(alerts: [], devices: [], clockLog: row)
    }

    /// A restart reads the folded rows and the log together: a device's last logged clock, unless
    /// a tombstone follows it, against its folded row, whichever is later.
    @Test func aRestartReadsTheFoldedRowsAndTheLogTogether() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        // Folded: a at 10, b at 50 (a fold that ran after b's logged clocks below), c at 5.
        try journal.write(alerts: [], devices: [], clocks: [clock("a", 10), clock("b", 50), clock("c", 5)])
        try log([clock("a", 11), clock("b", 20), clock("d", 1)], in: journal)
        try log([clock("a", 12, heard: 13), clock("d", 2)], in: journal)
        // The same time, heard later: the later entry.
        try log([clock("c", 5, heard: 9)], in: journal)
        #expect(try journal.loadDeviceClocks().clocks == [
            ExactID("a"): clock("a", 12, heard: 13), ExactID("b"): clock("b", 50), ExactID("c"): clock("c", 5, heard: 9),
            ExactID("d"): clock("d", 2),
        ])
        #expect(journal.lastClockLogRow == 3)
        // Those whose clock is the log's: the next fold must write them before it deletes the log.
        #expect(try journal.loadDeviceClocks().logged == [ExactID("a"), ExactID("c"), ExactID("d")])
    }

    /// A forgotten device's clocks say nothing once its tombstone follows them; seen again, what
    /// is logged after the tombstone counts, and so does a folded row written after it.
    @Test func aTombstoneVoidsTheClocksBeforeIt() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        try log([clock("gone", 100), clock("back", 100), clock("refolded", 100)], in: journal)
        // Forgotten as the service does it: rows deleted, tombstones logged, one transaction.
        var row: [UInt8] = []
        ClockLog.append(forgotten: ["gone", "back", "refolded"], clocks: [], to: &row)
        try journal.write(alerts: [], devices: [], removedDevices: ["gone", "back", "refolded"], clockLog: row)
        #expect(try journal.loadDeviceClocks().clocks.isEmpty)
        // Seen again, with clocks older than before (a tracker whose clock was reset).
        try log([clock("back", 3)], in: journal)
        try journal.write(alerts: [], devices: [], clocks: [clock("refolded", 4)])
        let stored = try journal.loadDeviceClocks()
        #expect(stored.clocks == [ExactID("back"): clock("back", 3), ExactID("refolded"): clock("refolded", 4)])
        #expect(stored.logged == [ExactID("back")])
    }

    /// A fold deletes the log's rows it covers, a few a transaction; a log longer
    /// than one read (rows are read a few at a time) is read whole; the ids go on after a reopen.
    @Test func foldedRowsGoAndTheRestIsReadAfterAReopen() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        for second in 1...20 { try log([clock("t\(second % 7)", Double(second))], in: journal) }
        try journal.write(alerts: [], devices: [], clocks: [clock("t0", 14)], foldedClockLog: 5)
        #expect(try journal.db.run("SELECT COUNT(*) AS n FROM clock_log").first?.column("n")?.int64Value == 15)
        try journal.close()
        let reopened = try Journal(path: directory.path())
        defer { try? reopened.close() }
        #expect(reopened.lastClockLogRow == 20)
        let clocks = try reopened.loadDeviceClocks().clocks
        // Rows 6-20 are left: more than one read of rows. t0 folded at 14; the others as last
        // logged, t5 from row 19 although its row 5 went.
        #expect(clocks[ExactID("t0")] == clock("t0", 14))
        #expect(clocks[ExactID("t1")] == clock("t1", 15))
        #expect(clocks[ExactID("t5")] == clock("t5", 19))
        #expect(clocks[ExactID("t6")] == clock("t6", 20))
        #expect(clocks.count == 7)
        try log([clock("new", 99)], in: reopened)
        #expect(reopened.lastClockLogRow == 21)
        #expect(try reopened.loadDeviceClocks().clocks[ExactID("new")] == clock("new", 99))
    }

    /// Folded rows go 16 a write, oldest first, never past the fold's row; a reopened journal
    /// goes on from the first row left.
    @Test func foldedRowsGoSixteenAWrite() throws {
        let directory = try JournalDirectory()
        var journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        func rows() throws -> [Int64] {
            try journal.db.run("SELECT id FROM clock_log ORDER BY id").compactMap { $0.column("id")?.int64Value }
        }
        for second in 1...40 { try log([clock("a", Double(second))], in: journal) }
        try journal.write(alerts: [], devices: [], foldedClockLog: 30)
        #expect(try rows() == Array(17...40))
        try journal.close()
        journal = try Journal(path: directory.path())
        try journal.write(alerts: [], devices: [], foldedClockLog: 30)
        #expect(try rows() == Array(31...40))
        try journal.write(alerts: [], devices: [], foldedClockLog: 30)
        #expect(try rows() == Array(31...40), "nothing past the fold's row")
        try log([clock("a", 41)], in: journal)
        #expect(try rows() == Array(31...41))
    }

    /// Deleting a folded row frees its overflow pages without writing them again: Debian's SQLite
    /// zeroes every freed page through the WAL unless `secure_delete` is `FAST`.
    @Test func aFoldedRowIsDeletedWithoutWritingItsPagesAgain() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        // About 1.2 MB: some 290 overflow pages.
        try log((0..<20_000).map { clock("truck-\($0)", Double($0)) }, in: journal)
        let before = journal.db.walFrames
        try journal.write(alerts: [], devices: [], foldedClockLog: 1)
        #expect(try journal.db.run("SELECT COUNT(*) AS n FROM clock_log").first?.column("n")?.int64Value == 0)
        #expect(journal.db.walFrames - before < 20, "\(journal.db.walFrames - before) frames to delete one row")
    }

    /// A row this build cannot read is skipped whole, with a warning, as an unreadable device
    /// record is: the rows before and after it still count, and the restart goes on.
    @Test func anUnreadableRowIsSkippedWhole() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        try log([clock("a", 1), clock("b", 1)], in: journal)
        // A readable clock of b, then garbage: none of it applies.
        var broken: [UInt8] = []
        ClockLog.append(clocks: [clock("b", 2)], to: &broken)
        try journal.write(alerts: [], devices: [], clockLog: broken + [1, 200])
        try log([clock("a", 3)], in: journal)
        #expect(try journal.loadDeviceClocks().clocks == [ExactID("a"): clock("a", 3), ExactID("b"): clock("b", 1)])
    }
}
