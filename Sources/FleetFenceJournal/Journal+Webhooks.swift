/// The webhook outbox (docs/webhooks.md "Webhooks"): rows are inserted with their alerts by `write`; the
/// delivery worker takes due rows a batch at a time, and marks each delivered (the row goes),
/// retried (a later attempt) or dead (moved to `webhook_dead`). The queue lives here, not in
/// memory: a receiver down for hours costs rows.

/// One queued delivery: an alert for one webhook.
public struct WebhookDelivery: Sendable, Equatable {
    public var id: Int64
    public var webhook: String
    public var device: String
    public var seq: Int64
    public var event: String
    /// The alert exactly as published on MQTT.
    public var payload: [UInt8]
    /// Wall-clock arrival of what confirmed the alert; its delivery's delay is measured from here.
    public var confirmedAt: Double
    /// When it was queued (or requeued): `max_age_s` counts from here.
    public var queuedAt: Double
    public var attempts: Int
    public var firstAttemptAt: Double?
    public var lastError: String?
}

/// A delivery given up on: its last status or error, and its attempts.
public struct WebhookDeadLetter: Sendable, Equatable {
    public var id: Int64
    public var device: String
    public var seq: Int64
    public var event: String
    public var payload: [UInt8]
    public var attempts: Int
    public var firstAttemptAt: Double?
    public var lastAttemptAt: Double?
    public var error: String
}

/// What the outbox holds for one webhook.
public struct WebhookQueueState: Sendable, Equatable {
    /// Rows waiting, attempted or not.
    public var queued = 0
    /// Rows attempted at least once, waiting for their next attempt.
    public var retrying = 0
    public var dead = 0
    /// The earliest next attempt of a row that failed before.
    public var nextAttemptAt: Double?
}

extension Journal {
    private static let outboxColumns =
        "id, webhook, device, seq, event, payload, confirmed_at, queued_at, attempts, first_attempt_at, last_error"

    /// Up to `limit` due rows of `webhook` that head their device's queue (no older row of the
    /// same device waits): a later event of a device never goes before an earlier one is done.
    /// Oldest due first; a bounded batch, never the whole queue.
    public func dueWebhookDeliveries(webhook: String, now: Double, limit: Int) throws -> [WebhookDelivery] {
        let sql = """
            SELECT \(Self.outboxColumns) FROM webhook_outbox
            WHERE webhook = ? AND head = 1 AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?
            """
        let rows = try locked { try db.run(sql, [.text(webhook), .float(now), .integer(Int64(max(1, limit)))]) }
        return try rows.map(WebhookDelivery.init(row:))
    }

    /// The earliest next attempt of a head after `now`.
    public func nextWebhookAttempt(webhook: String, after now: Double) throws -> Double? {
        try locked {
            try db.run(
                "SELECT MIN(next_attempt_at) AS next FROM webhook_outbox WHERE webhook = ? AND head = 1 AND next_attempt_at > ?",
                [.text(webhook), .float(now)]
            ).first?.column("next")?.doubleValue
        }
    }

    /// Delivered: the row goes (the outbox is pruned as it is delivered), its device's next heads.
    public func webhookDelivered(_ delivery: WebhookDelivery) throws {
        try locked {
            try db.transaction {
                try db.run("DELETE FROM webhook_outbox WHERE id = ?", [.integer(delivery.id)])
                try db.run(JournalSQL.promoteOutboxHead, [.text(delivery.webhook), .text(delivery.device)])
            }
        }
    }

    /// Failed in the attempt begun at `now`, to be tried again at `nextAttemptAt`.
    public func webhookRetry(id: Int64, error: String, at now: Double, nextAttemptAt: Double) throws {
        _ = try locked {
            try db.run(
                """
                UPDATE webhook_outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?,
                    first_attempt_at = COALESCE(first_attempt_at, ?), last_attempt_at = ?
                WHERE id = ?
                """, [.float(nextAttemptAt), .text(error), .float(now), .float(now), .integer(id)])
        }
    }

    /// How many rows each webhook has queued, by name.
    public func queuedWebhookRows() throws -> [String: Int] {
        try locked {
            let rows = try db.run("SELECT webhook, COUNT(*) AS queued FROM webhook_outbox GROUP BY webhook")
            var counts: [String: Int] = [:]
            for row in rows {
                guard let name = row.column("webhook")?.stringValue else { continue }
                counts[name] = Int(row.column("queued")?.int64Value ?? 0)
            }
            return counts
        }
    }

    /// The heads of `webhook` waiting out a back-off after an attempt that failed before `failedBefore`
    /// are due at `now` instead: the receiver has answered since. Not those a 429 put off (it asked
    /// the sender to slow down), nor those waiting out a `Retry-After` (said in the error). Returns
    /// how many.
    public func bringWebhookRetriesForward(webhook: String, failedBefore: Double, to now: Double) throws -> Int {
        try locked {
            try db.run(
                """
                UPDATE webhook_outbox SET next_attempt_at = ?
                WHERE webhook = ? AND head = 1 AND attempts > 0 AND next_attempt_at > ? AND last_attempt_at < ?
                    AND (last_error IS NULL OR (last_error NOT LIKE 'HTTP 429%' AND last_error NOT LIKE '%Retry-After%'))
                """, [.float(now), .text(webhook), .float(now), .float(failedBefore)])
            return db.changes
        }
    }

    /// Given up on at `now`: moved to the dead letters with `error`. `attemptedAt`: when the attempt
    /// just made began (counted), or nil when it expired waiting (`max_age_s`) and keeps its last
    /// error.
    public func webhookDead(_ delivery: WebhookDelivery, error: String, at now: Double, attemptedAt: Double?) throws {
        let id = delivery.id
        let add: Int64 = attemptedAt == nil ? 0 : 1
        let attempt = attemptedAt ?? now
        try locked {
            try db.transaction {
                try db.run(
                    """
                    INSERT OR REPLACE INTO webhook_dead (id, webhook, device, seq, event, payload, confirmed_at, queued_at,
                        attempts, first_attempt_at, last_attempt_at, error, died_at)
                    SELECT id, webhook, device, seq, event, payload, confirmed_at, queued_at, attempts + ?,
                        CASE WHEN ? = 1 THEN COALESCE(first_attempt_at, ?) ELSE first_attempt_at END,
                        CASE WHEN ? = 1 THEN ? ELSE last_attempt_at END, ?, ?
                    FROM webhook_outbox WHERE id = ?
                    """,
                    [.integer(add), .integer(add), .float(attempt), .integer(add), .float(attempt), .text(error), .float(now), .integer(id)])
                try db.run("DELETE FROM webhook_outbox WHERE id = ?", [.integer(id)])
                try db.run(JournalSQL.promoteOutboxHead, [.text(delivery.webhook), .text(delivery.device)])
            }
        }
    }

    /// Counts for `GET /api/webhooks`.
    public func webhookQueueState(webhook: String) throws -> WebhookQueueState {
        try locked {
            let queued = try db.run(
                """
                SELECT COUNT(*) AS queued, COALESCE(SUM(attempts > 0), 0) AS retrying,
                    MIN(CASE WHEN attempts > 0 THEN next_attempt_at END) AS next
                FROM webhook_outbox WHERE webhook = ?
                """, [.text(webhook)]
            ).first
            let dead = try db.run("SELECT COUNT(*) AS dead FROM webhook_dead WHERE webhook = ?", [.text(webhook)]).first
            return WebhookQueueState(
                queued: Int(queued?.column("queued")?.int64Value ?? 0),
                retrying: Int(queued?.column("retrying")?.int64Value ?? 0),
                dead: Int(dead?.column("dead")?.int64Value ?? 0),
                nextAttemptAt: queued?.column("next")?.doubleValue)
        }
    }

    /// The error of the latest failed attempt the journal holds for `webhook` (an event retrying,
    /// or dead): what `last_error` says after a restart, before the service's own first failure.
    public func webhookLastError(webhook: String) throws -> String? {
        try locked {
            try db.run(
                """
                SELECT error, at FROM (
                    SELECT last_error AS error, last_attempt_at AS at FROM webhook_outbox
                    WHERE webhook = ? AND last_error IS NOT NULL
                    UNION ALL
                    SELECT error, last_attempt_at AS at FROM webhook_dead WHERE webhook = ?
                ) ORDER BY at DESC LIMIT 1
                """, [.text(webhook), .text(webhook)]
            ).first?.optionalText("error")
        }
    }

    /// A page of `webhook`'s dead letters, oldest first, after the row `after`; and the cursor of
    /// the next page (nil on the last).
    public func webhookDeadLetters(webhook: String, after: Int64?, limit: Int) throws -> (dead: [WebhookDeadLetter], next: Int64?) {
        let limit = max(1, limit)
        let rows = try locked {
            try db.run(
                """
                SELECT id, device, seq, event, payload, attempts, first_attempt_at, last_attempt_at, error
                FROM webhook_dead WHERE webhook = ? AND id > ? ORDER BY id LIMIT ?
                """, [.text(webhook), .integer(after ?? 0), .integer(Int64(limit) + 1)])
        }
        let table = "webhook_dead"
        let dead = try rows.prefix(limit).map { row in
            WebhookDeadLetter(
                id: try row.int64("id", in: table), device: try row.text("device", in: table),
                seq: try row.int64("seq", in: table), event: try row.text("event", in: table),
                payload: try row.bytes("payload", in: table), attempts: Int(try row.int64("attempts", in: table)),
                firstAttemptAt: row.optionalDouble("first_attempt_at"), lastAttemptAt: row.optionalDouble("last_attempt_at"),
                error: try row.text("error", in: table))
        }
        return (dead, rows.count > limit ? dead.last?.id : nil)
    }

    /// Queues `webhook`'s dead letters again, each under its own id (its place in its device's
    /// order), due now, with `max_age_s` counting afresh; the devices concerned get their heads
    /// anew. Returns how many.
    @discardableResult
    public func redeliverWebhookDeadLetters(webhook: String, now: Double) throws -> Int {
        try locked {
            try db.transaction {
                try db.run(
                    """
                    INSERT OR IGNORE INTO webhook_outbox (id, webhook, device, seq, event, payload, confirmed_at, queued_at,
                        attempts, next_attempt_at)
                    SELECT id, webhook, device, seq, event, payload, confirmed_at, ?, 0, ? FROM webhook_dead WHERE webhook = ?
                    """, [.float(now), .float(now), .text(webhook)])
                let requeued = db.changes
                try db.run(
                    """
                    UPDATE webhook_outbox SET head = (id = (SELECT MIN(id) FROM webhook_outbox AS p
                        WHERE p.webhook = webhook_outbox.webhook AND p.device = webhook_outbox.device))
                    WHERE webhook = ?1 AND device IN (SELECT device FROM webhook_dead WHERE webhook = ?1)
                    """, [.text(webhook)])
                try db.run("DELETE FROM webhook_dead WHERE webhook = ?", [.text(webhook)])
                return requeued
            }
        }
    }
}

extension WebhookDelivery {
    init(row: SQLiteRow) throws {
        let table = "webhook_outbox"
        self.init(
            id: try row.int64("id", in: table), webhook: try row.text("webhook", in: table),
            device: try row.text("device", in: table), seq: try row.int64("seq", in: table),
            event: try row.text("event", in: table), payload: try row.bytes("payload", in: table),
            confirmedAt: try row.double("confirmed_at", in: table), queuedAt: try row.double("queued_at", in: table),
            attempts: Int(try row.int64("attempts", in: table)), firstAttemptAt: row.optionalDouble("first_attempt_at"),
            lastError: row.optionalText("last_error"))
    }
}
