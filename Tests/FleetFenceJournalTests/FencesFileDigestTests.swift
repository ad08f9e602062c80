import Foundation
import GeofenceEngine
import Logging
import Testing

@testable import FleetFenceJournal

/// The digest vouching for the fences file's record (`FencesFileDigest`): set and cleared in the
/// transactions of the record's changes, the later of a batch's steps winning.
@Suite struct FencesFileDigestTests {
    @Test func isSetAndClearedWithTheRecordAndOutlivesAReopen() throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        #expect(try journal.fencesFileDigest() == nil, "a new journal vouches for no file")
        try journal.write(alerts: [], devices: [], fileFences: [ExactID("a"): Array("{}".utf8)], fencesFileDigest: .set("ab12"))
        #expect(try journal.fencesFileDigest() == "ab12")
        try journal.write(alerts: [], devices: [], fencesFileDigest: .clear)
        #expect(try journal.fencesFileDigest() == nil)
        try journal.write(alerts: [], devices: [], fencesFileDigest: .set("cd34"))
        try journal.close()
        let reopened = try Journal(path: directory.path())
        defer { try? reopened.close() }
        #expect(try reopened.fencesFileDigest() == "cd34")
    }

    /// A file applied in several steps: its first clears the digest, its last sets the new one.
    /// Written in one transaction, the last step's word is the digest; a batch that ends with the
    /// first step's leaves none.
    @Test func theWriterKeepsTheLastStepsWord() async throws {
        let directory = try JournalDirectory()
        let journal = try Journal(path: directory.path())
        defer { try? journal.close() }
        let writer = JournalWriter<TestStep>(journal: journal, logger: Logger(label: "test")) { _ in }
        func step(_ change: FencesFileDigest.Change?) -> TestStep {
            var step = TestStep()
            step.changes.fencesFileDigest = change
            return step
        }
        writer.submit(step(.set("old")))
        await writer.waitUntilDelivered()
        writer.submit(step(.clear))
        writer.submit(step(nil))
        writer.submit(step(.set("new")))
        await writer.waitUntilDelivered()
        #expect(try journal.fencesFileDigest() == "new")
        writer.submit(step(.set("newer")))
        writer.submit(step(.clear))
        writer.submit(step(nil))
        await writer.waitUntilDelivered()
        #expect(try journal.fencesFileDigest() == nil)
        await writer.stop()
    }
}
