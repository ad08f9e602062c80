import Foundation
import GeofenceEngine
import Testing

@testable import FleetFenceJournal

/// The mark of what the broker acknowledged (docs/reliability.md "What is promised"): journaled
/// with the writes, the alerts after it read back in commit order, ids never reused.
@Suite struct PublishedMarkTests {
    private static func withJournalPath(_ body: (String) throws -> Void) throws {
        let directory = try JournalDirectory()
        try body(directory.path())
    }

    private static func alert(_ device: String, seq: UInt64, at: Double = 100) -> AlertRecord {
        AlertRecord(
            transition: Transition(
                event: .enter, device: device, fenceID: "depot", fenceName: nil, at: at, confirmedAt: at + 2, lat: 1, lon: 2,
                radiusMeters: nil, seq: seq),
            payload: Array(#"{"device":"\#(device)","seq":\#(seq)}"#.utf8))
    }

    @Test func alertsAfterTheMarkComeBackInCommitOrderWithTheirBytes() throws {
        try Self.withJournalPath { path in
            let journal = try Journal(path: path)
            #expect(try journal.publishedMark() == nil, "a journal no mark was written to has none")
            try journal.write(alerts: [Self.alert("a", seq: 1), Self.alert("b", seq: 1)], devices: [])
            #expect(journal.lastAlertID == 2)
            try journal.write(alerts: [], devices: [], mark: PublishedMark(alertID: 1, time: 1_000.25))
            try journal.write(alerts: [Self.alert("a", seq: 2)], devices: [])
            try journal.close()

            let reopened = try Journal(path: path)
            defer { try? reopened.close() }
            #expect(try reopened.publishedMark() == PublishedMark(alertID: 1, time: 1_000.25))
            let after = try reopened.alerts(after: 1)
            #expect(after.map(\.id) == [2, 3])
            #expect(after.map(\.device) == ["b", "a"])
            #expect(after.map(\.event) == ["enter", "enter"])
            #expect(after.last?.payload == Array(#"{"device":"a","seq":2}"#.utf8))
        }
    }

    /// Retention may empty the table; an id the mark covers must never name a newer alert.
    @Test func idsAreNotReusedAfterRetentionEmptiedTheTable() throws {
        try Self.withJournalPath { path in
            let journal = try Journal(path: path)
            try journal.write(alerts: [Self.alert("a", seq: 1, at: 10), Self.alert("a", seq: 2, at: 11)], devices: [])
            try journal.write(alerts: [], devices: [], mark: PublishedMark(alertID: 2, time: 1))
            #expect(try journal.prune(before: 1_000, limit: 10) == 2)
            try journal.close()

            let reopened = try Journal(path: path)
            defer { try? reopened.close() }
            try reopened.write(alerts: [Self.alert("a", seq: 3)], devices: [])
            #expect(try reopened.alerts(after: 2).map(\.id) == [3], "the new alert is after the mark")
        }
    }

    @Test func devicesCarryWhenTheirRowWasWritten() throws {
        try Self.withJournalPath { path in
            let journal = try Journal(path: path)
            defer { try? journal.close() }
            let before = Date().timeIntervalSince1970
            try journal.write(alerts: [], devices: [JournalDeviceRow(device: "a", state: [1])])
            let written = try #require(try journal.loadDevices().first?.updatedAt)
            #expect(written >= before && written <= Date().timeIntervalSince1970)
        }
    }
}
