import Foundation
import GeofenceEngine
import Testing

@testable import FleetFenceJournal

/// The webhook outbox (docs/webhooks.md "Webhooks"): queued with the alert, delivered a device's head at a
/// time, retried, dead-lettered and requeued in the journal.
@Suite struct WebhookOutboxTests {
    private static func withJournal(_ body: (Journal, String) throws -> Void) throws {
        let directory = try JournalDirectory()
        let path = directory.path()
        let journal = try Journal(path: path)
        defer { try? journal.close() }
        try body(journal, path)
    }

    private static func alert(_ device: String, seq: UInt64, webhooks: [String]) -> AlertRecord {
        AlertRecord(
            transition: Transition(
                event: .enter, device: device, fenceID: "depot", fenceName: nil, at: 100, confirmedAt: 102, lat: 1, lon: 2,
                radiusMeters: nil, seq: seq),
            payload: Array(#"{"device":"\#(device)","seq":\#(seq)}"#.utf8), arrival: 1_000, webhooks: webhooks)
    }

    /// Writes one alert per (device, seq), each queued for the `ops` webhook only, as one batch.
    private static func queueForOps(_ journal: Journal, _ alerts: [(device: String, seq: UInt64)]) throws {
        try journal.write(alerts: alerts.map { alert($0.device, seq: $0.seq, webhooks: ["ops"]) }, devices: [])
    }

    @Test func rowsAreQueuedWithTheirAlertAndSurviveReopening() throws {
        try Self.withJournal { journal, path in
            try journal.write(
                alerts: [Self.alert("truck-1", seq: 1, webhooks: ["ops", "audit"]), Self.alert("truck-2", seq: 1, webhooks: [])],
                devices: [])
            try journal.close()
            let reopened = try Journal(path: path)
            defer { try? reopened.close() }
            let ops = try reopened.dueWebhookDeliveries(webhook: "ops", now: .greatestFiniteMagnitude, limit: 10)
            #expect(ops.map(\.device) == ["truck-1"])
            #expect(ops.first?.payload == Array(#"{"device":"truck-1","seq":1}"#.utf8))
            #expect(ops.first?.confirmedAt == 1_000)
            #expect(try reopened.dueWebhookDeliveries(webhook: "audit", now: .greatestFiniteMagnitude, limit: 10).count == 1)
            #expect(try reopened.webhookQueueState(webhook: "ops").queued == 1)
        }
    }

    @Test func onlyEachDevicesOldestRowIsDueAndDeliveredRowsGo() throws {
        try Self.withJournal { journal, _ in
            try Self.queueForOps(journal, [("a", 1), ("a", 2), ("b", 7)])
            let far = Double.greatestFiniteMagnitude
            let first = try journal.dueWebhookDeliveries(webhook: "ops", now: far, limit: 10)
            #expect(first.map { "\($0.device)/\($0.seq)" }.sorted() == ["a/1", "b/7"])
            let a1 = try #require(first.first { $0.device == "a" })
            try journal.webhookDelivered(a1)
            let second = try journal.dueWebhookDeliveries(webhook: "ops", now: far, limit: 10)
            #expect(second.map { "\($0.device)/\($0.seq)" }.sorted() == ["a/2", "b/7"])
            #expect(try journal.webhookQueueState(webhook: "ops").queued == 2)
        }
    }

    @Test func aRetryWaitsAndBlocksItsDeviceOnly() throws {
        try Self.withJournal { journal, _ in
            try Self.queueForOps(journal, [("a", 1), ("a", 2), ("b", 1)])
            let now = Date().timeIntervalSince1970
            let a1 = try #require(try journal.dueWebhookDeliveries(webhook: "ops", now: now, limit: 10).first { $0.device == "a" })
            try journal.webhookRetry(id: a1.id, error: "HTTP 503", at: now, nextAttemptAt: now + 60)
            let due = try journal.dueWebhookDeliveries(webhook: "ops", now: now + 1, limit: 10)
            #expect(due.map(\.device) == ["b"])
            #expect(try journal.nextWebhookAttempt(webhook: "ops", after: now + 1) == now + 60)
            let state = try journal.webhookQueueState(webhook: "ops")
            #expect(state.queued == 3 && state.retrying == 1 && state.nextAttemptAt == now + 60)
            let later = try journal.dueWebhookDeliveries(webhook: "ops", now: now + 61, limit: 10)
            let retried = try #require(later.first { $0.device == "a" })
            #expect(retried.seq == 1 && retried.attempts == 1 && retried.lastError == "HTTP 503")
        }
    }

    /// A receiver back: the heads that failed before its answer are due now; not one put off by a
    /// 429 or a Retry-After, nor one that failed after the answer began, nor a row behind its head.
    @Test func retriesThatFailedBeforeAnAnswerAreBroughtForward() throws {
        try Self.withJournal { journal, _ in
            try Self.queueForOps(journal, [("a", 1), ("a", 2), ("b", 1), ("c", 1), ("d", 1), ("e", 1)])
            let now = Date().timeIntervalSince1970
            let heads = try journal.dueWebhookDeliveries(webhook: "ops", now: now, limit: 10)
            func head(_ device: String) throws -> WebhookDelivery { try #require(heads.first { $0.device == device }) }
            try journal.webhookRetry(id: head("a").id, error: "connection failed", at: now, nextAttemptAt: now + 300)
            try journal.webhookRetry(id: head("b").id, error: "HTTP 429", at: now, nextAttemptAt: now + 300)
            try journal.webhookRetry(id: head("c").id, error: "HTTP 503", at: now + 20, nextAttemptAt: now + 300)
            try journal.webhookRetry(id: head("d").id, error: "timeout", at: now, nextAttemptAt: now + 300)
            try journal.webhookRetry(id: head("e").id, error: "HTTP 503, Retry-After 600 s", at: now, nextAttemptAt: now + 600)
            #expect(try journal.bringWebhookRetriesForward(webhook: "ops", failedBefore: now + 10, to: now + 30) == 2)
            let due = try journal.dueWebhookDeliveries(webhook: "ops", now: now + 30, limit: 10)
            #expect(due.map { "\($0.device)/\($0.seq)" }.sorted() == ["a/1", "d/1"])
            #expect(try journal.bringWebhookRetriesForward(webhook: "other", failedBefore: now + 10, to: now + 30) == 0)
            #expect(try journal.queuedWebhookRows() == ["ops": 6])
        }
    }

    /// The latest failure the journal holds, retrying or dead, is what a restarted service reports
    /// as `last_error` before its own first failure.
    @Test func theLatestFailureIsReadBackFromTheJournal() throws {
        try Self.withJournal { journal, _ in
            try Self.queueForOps(journal, [("a", 1), ("b", 1)])
            #expect(try journal.webhookLastError(webhook: "ops") == nil)
            let now = Date().timeIntervalSince1970
            let heads = try journal.dueWebhookDeliveries(webhook: "ops", now: now, limit: 2)
            try #require(heads.count == 2)
            try journal.webhookDead(heads[0], error: "HTTP 410", at: now - 20, attemptedAt: now - 20)
            try journal.webhookRetry(id: heads[1].id, error: "HTTP 503", at: now - 10, nextAttemptAt: now + 60)
            #expect(try journal.webhookLastError(webhook: "ops") == "HTTP 503")
        }
    }

    @Test func deadLettersArePagedAndRequeuedUnderTheirOwnIds() throws {
        try Self.withJournal { journal, _ in
            try Self.queueForOps(journal, (1...3).map { ("a", $0) })
            let now = Date().timeIntervalSince1970
            var ids: [Int64] = []
            for _ in 1...3 {
                let head = try #require(try journal.dueWebhookDeliveries(webhook: "ops", now: now, limit: 1).first)
                ids.append(head.id)
                try journal.webhookDead(head, error: "HTTP 410", at: now, attemptedAt: now)
            }
            #expect(try journal.webhookQueueState(webhook: "ops") == WebhookQueueState(queued: 0, retrying: 0, dead: 3))
            let page1 = try journal.webhookDeadLetters(webhook: "ops", after: nil, limit: 2)
            #expect(page1.dead.map(\.seq) == [1, 2])
            #expect(page1.dead.first?.error == "HTTP 410" && page1.dead.first?.attempts == 1)
            #expect(page1.dead.first?.firstAttemptAt == now && page1.dead.first?.lastAttemptAt == now)
            let page2 = try journal.webhookDeadLetters(webhook: "ops", after: page1.next, limit: 2)
            #expect(page2.dead.map(\.seq) == [3] && page2.next == nil)
            #expect(try journal.webhookDeadLetters(webhook: "other", after: nil, limit: 2).dead.isEmpty)

            #expect(try journal.redeliverWebhookDeadLetters(webhook: "ops", now: now + 5) == 3)
            #expect(try journal.webhookQueueState(webhook: "ops").dead == 0)
            let head = try #require(try journal.dueWebhookDeliveries(webhook: "ops", now: now + 5, limit: 10).first)
            #expect(head.id == ids[0] && head.seq == 1 && head.attempts == 0 && head.queuedAt == now + 5)
        }
    }

    @Test func anExpiredRowKeepsItsLastErrorWhenDeadLettered() throws {
        try Self.withJournal { journal, _ in
            try Self.queueForOps(journal, [("a", 1)])
            let row = try #require(try journal.dueWebhookDeliveries(webhook: "ops", now: 1e12, limit: 1).first)
            try journal.webhookRetry(id: row.id, error: "timeout", at: 10, nextAttemptAt: 20)
            try journal.webhookDead(row, error: "timeout", at: 30, attemptedAt: nil)
            let dead = try #require(try journal.webhookDeadLetters(webhook: "ops", after: nil, limit: 5).dead.first)
            #expect(dead.attempts == 1 && dead.firstAttemptAt == 10 && dead.lastAttemptAt == 10 && dead.error == "timeout")
        }
    }

    /// The dead letter's attempts are when they began; it died when the last one ended.
    @Test func attemptsAreStampedWhenTheyBeganAndTheDeathWhenItCame() throws {
        try Self.withJournal { journal, _ in
            try Self.queueForOps(journal, [("a", 1)])
            let row = try #require(try journal.dueWebhookDeliveries(webhook: "ops", now: 1e12, limit: 1).first)
            try journal.webhookRetry(id: row.id, error: "HTTP 500", at: 10, nextAttemptAt: 20)
            let again = try #require(try journal.dueWebhookDeliveries(webhook: "ops", now: 1e12, limit: 1).first)
            try journal.webhookDead(again, error: "HTTP 404", at: 32, attemptedAt: 30)
            let dead = try #require(try journal.webhookDeadLetters(webhook: "ops", after: nil, limit: 5).dead.first)
            #expect(dead.attempts == 2 && dead.firstAttemptAt == 10 && dead.lastAttemptAt == 30 && dead.error == "HTTP 404")
        }
    }

    @Test func aRedeliveredOlderRowHeadsItsDeviceAgainAndALongQueueHidesNoOtherDevice() throws {
        try Self.withJournal { journal, _ in
            try Self.queueForOps(journal, [("a", 1)])
            let now = Date().timeIntervalSince1970
            let first = try #require(try journal.dueWebhookDeliveries(webhook: "ops", now: now, limit: 5).first)
            try journal.webhookDead(first, error: "HTTP 410", at: now, attemptedAt: now)
            // Behind it meanwhile: a long queue of a, and one row of b.
            try Self.queueForOps(journal, (2...500).map { ("a", $0) })
            try Self.queueForOps(journal, [("b", 1)])
            // (Due from when they were queued, just now.)
            let later = Date().timeIntervalSince1970 + 10
            #expect(try journal.dueWebhookDeliveries(webhook: "ops", now: later, limit: 2).map { "\($0.device)/\($0.seq)" } == ["a/2", "b/1"])
            try journal.redeliverWebhookDeadLetters(webhook: "ops", now: now)
            // a/1 is a's head again: a/2 waits for it.
            let due = try journal.dueWebhookDeliveries(webhook: "ops", now: later, limit: 10)
            #expect(due.map { "\($0.device)/\($0.seq)" }.sorted() == ["a/1", "b/1"])
            try journal.webhookDelivered(try #require(due.first { $0.device == "a" }))
            #expect(try journal.dueWebhookDeliveries(webhook: "ops", now: later, limit: 10).map(\.seq).sorted() == [1, 2])
        }
    }
}
