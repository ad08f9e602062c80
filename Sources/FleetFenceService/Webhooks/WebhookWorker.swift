import AsyncHTTPClient
import Dispatch
import FleetFenceJournal
import Foundation
import Logging
import Synchronization

/// Delivers one webhook's queue, an output beside MQTT (docs/webhooks.md "Webhooks"). It never holds up the
/// core or the writer: the writer only inserts rows and wakes it; it loads due rows from the
/// journal in small batches, sends up to ``maxInFlight`` at once (one per device, so each device's
/// events go in order), and marks each delivered, retried or dead in the journal.
final class WebhookWorker: Sendable {
    /// What a webhook is run with: its settings, and its secret as read at (re)start.
    struct Target: Sendable, Equatable {
        var settings: WebhookSettings
        var secret: [UInt8]?
        var backoff: WebhookBackoff
    }

    /// What `GET /api/webhooks` shows beside the journal's counts; since this start, but for the
    /// last error, which starts as the latest the journal holds (a restart forgets nothing a
    /// receiver answered, and keeps it once those rows are delivered, as a run without one does).
    struct Stats: Sendable {
        var delivered = 0
        var lastError: String?
        var lastDeliveredAt: Double?
    }

    static let maxInFlight = 8
    /// The longest sleep without a look at the journal: rows requeued by another connection (the
    /// sqlite3 shell) are found within it.
    private static let idleLook = 5.0
    /// How often the `fleetfence_webhook_queued` gauge is counted (a COUNT over the queue).
    private static let queuedGaugeInterval = 1.0

    let target: Target
    private let journal: Journal
    /// A read-only connection for the queue's count, which scans.
    private let reader: Journal
    private let client: HTTPClient
    private let metrics: WebhookMetrics
    private let logger: Logger
    private let waker = Waker()
    private let inFlight = Mutex<Set<String>>([])
    let stats: Mutex<Stats>
    private let task = Mutex<Task<Void, Never>?>(nil)
    /// Set by `stop`: no delivery starts any more.
    private let draining = Mutex(false)
    /// How long a stop waits for the deliveries in flight (at most each webhook's `timeout_s`).
    static let stopGrace = 5.0

    var name: String { target.settings.name }

    init(target: Target, journal: Journal, reader: Journal, client: HTTPClient, metrics: WebhookMetrics, logger: Logger) {
        self.target = target
        self.journal = journal
        self.reader = reader
        stats = Mutex(Stats(lastError: try? reader.webhookLastError(webhook: target.settings.name)))
        self.client = client
        self.metrics = metrics
        var logger = logger
        logger[metadataKey: "webhook"] = "\(target.settings.name)"
        self.logger = logger
    }

    func start() {
        let run = Task { await self.run() }
        task.withLock { $0 = run }
    }

    /// Starts no more deliveries (those in flight go on).
    func drain() {
        draining.withLock { $0 = true }
    }

    /// Starts no more deliveries, lets those in flight finish for up to `stopGrace` seconds (or
    /// the webhook's `timeout_s`, if shorter), then cancels what is left (those rows stay queued
    /// and are sent again later, with the same `FleetFence-Delivery`) and returns once the worker
    /// has ended. Cancelled at once, a delivery the receiver had taken was sent again after a
    /// clean restart: twice, which only a `kill -9` may cause (docs/webhooks.md "Webhooks").
    func stop() async {
        drain()
        let deadline = ContinuousClock.now + .milliseconds(Int(min(Self.stopGrace, target.settings.timeoutSeconds) * 1_000))
        while inFlight.withLock({ !$0.isEmpty }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        let running = task.withLock { task in
            defer { task = nil }
            return task
        }
        running?.cancel()
        await running?.value
    }

    /// New rows, or rows requeued: look now.
    func wake() { waker.signal() }

    private func run() async {
        var nextGauge = 0.0
        var lastQueued = 0
        await withDiscardingTaskGroup { group in
            while !Task.isCancelled {
                let now = Date().timeIntervalSince1970
                let busy = inFlight.withLock { $0 }
                var sleep = Self.idleLook
                var started = false
                do {
                    if busy.count < Self.maxInFlight, !draining.withLock({ $0 }) {
                        // In-flight rows are due heads too: asked for as many more as there are free slots.
                        let due = try await Self.blocking { [journal, name] in
                            try journal.dueWebhookDeliveries(webhook: name, now: now, limit: Self.maxInFlight)
                        }
                        var free = Self.maxInFlight - busy.count
                        // Drained meanwhile (a stop): nothing more starts.
                        if draining.withLock({ $0 }) { free = 0 }
                        for row in due where free > 0 && !busy.contains(row.device) {
                            free -= 1
                            started = true
                            inFlight.withLock { _ = $0.insert(row.device) }
                            group.addTask {
                                await self.deliver(row)
                                self.inFlight.withLock { _ = $0.remove(row.device) }
                                self.waker.signal()
                            }
                        }
                    }
                    if let next = try await Self.blocking({ [journal, name] in
                        try journal.nextWebhookAttempt(webhook: name, after: now)
                    }) {
                        sleep = min(sleep, max(0.01, next - now))
                    }
                    if now >= nextGauge {
                        nextGauge = now + Self.queuedGaugeInterval
                        let state = try await Self.blocking { [reader, name] in try reader.webhookQueueState(webhook: name) }
                        metrics.queued(state.queued)
                        lastQueued = state.queued
                    }
                    // While anything is queued or moving, the gauge is counted again within its interval.
                    if lastQueued > 0 || started {
                        sleep = min(sleep, max(0.01, nextGauge - now))
                    }
                } catch {
                    // The journal closing at stop, or failing: looked at again shortly, never a crash.
                    if Task.isCancelled { break }
                    logger.warning("webhook queue unreadable", metadata: ["error": "\(error)"])
                    sleep = 1
                }
                await waker.wait(timeout: sleep)
            }
        }
    }

    /// One attempt of `row`, then its mark in the journal.
    private func deliver(_ row: WebhookDelivery) async {
        let settings = target.settings
        let now = Date().timeIntervalSince1970
        if now - row.queuedAt >= settings.maxAgeSeconds {
            // Waited out its max_age_s behind its device's earlier events, or while the service was down.
            let reason = row.lastError ?? "undelivered after max_age_s"
            await mark(row, "dead") { journal in
                try journal.webhookDead(row, error: reason, at: now, attemptedAt: nil)
            }
            metrics.deadOne()
            deadLettered(row, reason, expired: true)
            return
        }
        let headers = WebhookAttempt.headers(
            for: (row.event, row.device, row.seq), body: row.payload, secret: target.secret, now: now)
        let outcome: WebhookAttempt.Outcome
        do {
            outcome = try await WebhookAttempt.send(
                client, url: settings.url, headers: headers, body: row.payload, timeout: settings.timeoutSeconds, now: now)
        } catch {
            return  // Stopping: the row stays queued as it was.
        }
        let done = Date().timeIntervalSince1970
        switch outcome {
        case .delivered:
            await mark(row, "delivered") { journal in try journal.webhookDelivered(row) }
            metrics.deliveredOne(afterSeconds: done - row.confirmedAt)
            let previous = stats.withLock { stats in
                defer {
                    stats.delivered += 1
                    stats.lastDeliveredAt = done
                }
                return stats.lastDeliveredAt
            }
            if previous.map({ now - $0 >= Self.recoveredAfter }) ?? true {
                await bringRetriesForward(failedBefore: now, at: done)
            }
        case let .retry(reason, retryAfter):
            stats.withLock { $0.lastError = reason }
            let backoff = target.backoff
            let wait = backoff.delay(afterFailures: row.attempts + 1, retryAfter: retryAfter)
            // Never past its max_age_s: then it is dead with this error.
            let next = min(done + wait, row.queuedAt + settings.maxAgeSeconds)
            if next <= done {
                await mark(row, "dead") { journal in try journal.webhookDead(row, error: reason, at: done, attemptedAt: now) }
                metrics.deadOne()
                deadLettered(row, reason, expired: true)
            } else {
                await mark(row, "retry") { journal in
                    try journal.webhookRetry(id: row.id, error: reason, at: now, nextAttemptAt: next)
                }
                metrics.retriedOne()
            }
        case let .dead(reason):
            stats.withLock { $0.lastError = reason }
            await mark(row, "dead") { journal in try journal.webhookDead(row, error: reason, at: done, attemptedAt: now) }
            metrics.deadOne()
            deadLettered(row, reason, expired: false)
        }
    }

    /// A delivery after this long without one (seconds) finds a receiver back, most likely from
    /// being down: the devices waiting out a back-off are tried at once.
    static let recoveredAfter = 60.0

    /// Brings forward the retries of devices whose last attempt failed before `failedBefore` (the
    /// start of an attempt that delivered). Each device waited out its own back-off, so a receiver
    /// back after an hour down got its queue over the next five minutes, a device at a time; after
    /// a minute without a delivery only, so that a receiver failing some devices while taking others'
    /// still sees those retried by their back-off.
    private func bringRetriesForward(failedBefore: Double, at now: Double) async {
        let brought = try? await Self.blocking { [journal, name] in
            try journal.bringWebhookRetriesForward(webhook: name, failedBefore: failedBefore, to: now)
        }
        guard let brought, brought > 0 else { return }
        logger.info("webhook receiver answers again: retries brought forward", metadata: ["devices": "\(brought)"])
        waker.signal()
    }

    /// Every dead letter is logged, those past `max_age_s` too: unlogged, an expiry was the quiet
    /// way to lose a delivery.
    private func deadLettered(_ row: WebhookDelivery, _ reason: String, expired: Bool) {
        var metadata: Logger.Metadata = ["device": "\(row.device)", "seq": "\(row.seq)", "reason": "\(reason)"]
        if expired { metadata["after"] = "max_age_s" }
        logger.warning("webhook delivery dead-lettered", metadata: metadata)
    }

    /// A failed mark leaves the row as it was: it is attempted again, at worst delivered twice
    /// with the same `FleetFence-Delivery`.
    private func mark(_ row: WebhookDelivery, _ what: String, _ body: @escaping @Sendable (Journal) throws -> Void) async {
        do {
            try await Self.blocking { [journal] in try body(journal) }
        } catch {
            logger.warning(
                "webhook delivery not recorded", metadata: ["mark": "\(what)", "id": "\(row.id)", "error": "\(error)"])
        }
    }

    /// SQLite blocks: run off Swift's cooperative threads, which the HTTP interface shares.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            journalQueue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    private static let journalQueue = DispatchQueue(label: "fleetfence.webhooks.journal")
}
