import FleetFenceTesting
import Foundation
import Testing

@testable import FleetFenceJournal
@testable import FleetFenceService

/// An alert is published only after the transaction that holds it has committed (docs/operations.md
/// "Journal"): in-process, with the journal's write lock held by another connection, the service
/// must say nothing until it is let go, and then say the alert its journal holds.
@Suite("Service: journal before topics", .timeLimit(.minutes(1)))
struct ServiceJournalOrderTests {
    @Test func noAlertIsPublishedBeforeItsRowIsCommitted() async throws {
        try await withService { h in
            try await h.position("j", north: 300, ts: T)
            try await h.barrier()
            let blocker = try SQLiteConnection.open(path: h.journalPath)
            defer { try? blocker.close() }
            try blocker.run("BEGIN IMMEDIATE")
            try await h.position("j", north: 100, ts: T + 5)
            try await h.position("j", north: 100, ts: T + 8)  // confirms the enter
            try await Task.sleep(for: .milliseconds(1_500))
            #expect(h.alerts("j").isEmpty, "the enter waits for its transaction")
            try blocker.run("COMMIT")

            let alerts = await h.waitForAlerts("j", count: 1)
            #expect(alerts.map(\.event) == ["enter"])
            let rows = try blocker.run("SELECT seq FROM transitions WHERE device = 'j'")
            #expect(try rows.map { try $0.int64("seq", in: "transitions") } == [1])
        }
    }

    /// The read model shows an alert once it is committed, and the devices and fences the tick
    /// copied, without taking the core's lock.
    @Test func theReadModelFollowsTheService() async throws {
        try await withService { h in
            try await h.position("r", north: 300, ts: T)
            try await h.position("r", north: 100, ts: T + 5)
            try await h.position("r", north: 100, ts: T + 8)
            _ = await h.waitForAlerts("r", count: 1)
            guard case let .inProcess(service)? = h.service else { throw TestSupportError("in-process expected") }
            let model = service.service.readModel
            #expect(model.recentAlerts().map(\.transition.device) == ["r"])
            #expect(model.fences.map(\.id) == ["depot"])
            #expect(await eventually(timeout: .seconds(3)) { model.device("r")?.inside == ["depot"] })
            #expect(model.devices(after: nil, limit: 10).map(\.device) == ["r"])
            #expect(model.devices(after: "r", limit: 10).isEmpty)
            #expect(await eventually(timeout: .seconds(3)) { model.counters.positions == 3 })
        }
    }
}
