import AsyncHTTPClient
import FleetFenceJournal
import Foundation
import Logging
import Synchronization

/// The webhooks in force and their workers (docs/webhooks.md "Webhooks"): started with the service,
/// replaced on SIGHUP (a webhook whose settings and secret are unchanged keeps running), woken by
/// the journal's writer after each commit that queued rows, asked by the HTTP interface.
final class WebhookDispatcher: Sendable {
    /// The service's journal, from the first `apply` on; and a read-only connection of its own for
    /// counts and dead letters, which scan: they never hold the writer's connection up.
    private let journal = Mutex<(writer: Journal, reader: Journal)?>(nil)
    private let metrics: ServiceMetrics
    private let logger: Logger
    private let backoff: WebhookBackoff
    /// One client for every webhook. Redirects are not followed: a webhook's URL is where it posts.
    private let client: HTTPClient
    /// In the config file's order.
    private let workers = Mutex<[WebhookWorker]>([])

    init(metrics: ServiceMetrics, logger: Logger, backoff: WebhookBackoff) {
        self.metrics = metrics
        self.logger = logger
        self.backoff = backoff
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        // The pool is per host and port, the limit of 8 requests in flight per webhook: at 8 a
        // host, a slow receiver behind one webhook took every connection of the others on its host
        // and they timed out unsent. Room for 64 webhooks on one host.
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = WebhookWorker.maxInFlight * 64
        // A receiver that refuses connections fails the attempt at once, and the webhook's own
        // back-off decides when to try again; AsyncHTTPClient would hold it until its timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Brings `webhooks` into force. Reads every secret first: one unreadable refuses the whole
    /// list and keeps what runs (docs/webhooks.md "Webhooks").
    func apply(_ webhooks: [WebhookSettings], journal: Journal) async throws(ConfigurationError) {
        let reader = self.journal.withLock { opened in
            if let opened { return opened.reader }
            let reader = (try? Journal(readingOnly: journal.path, logger: logger)) ?? journal
            opened = (journal, reader)
            return reader
        }
        var targets: [WebhookWorker.Target] = []
        for webhook in webhooks {
            targets.append(WebhookWorker.Target(settings: webhook, secret: try webhook.secret(), backoff: backoff))
        }
        let (kept, retired, started) = workers.withLock { workers -> ([WebhookWorker], [WebhookWorker], [WebhookWorker]) in
            var kept: [WebhookWorker] = []
            var started: [WebhookWorker] = []
            for target in targets {
                if let running = workers.first(where: { $0.target == target }) {
                    kept.append(running)
                } else {
                    let worker = WebhookWorker(
                        target: target, journal: journal, reader: reader, client: client, metrics: metrics.webhook(target.settings.name),
                        logger: logger)
                    kept.append(worker)
                    started.append(worker)
                }
            }
            let retired = workers.filter { old in !kept.contains { $0 === old } }
            workers = kept
            return (kept, retired, started)
        }
        // A changed webhook's old worker stops before its new one starts: one worker per queue.
        for worker in retired { await worker.stop() }
        for worker in started { worker.start() }
        if !started.isEmpty || !retired.isEmpty {
            logger.info("webhooks in force", metadata: ["webhooks": "\(kept.map(\.name).joined(separator: ","))"])
        }
        // Rows of a webhook removed or renamed stay queued until it is configured again: said, so
        // that a rename does not leave them unseen (`/api/webhooks` lists the webhooks in force).
        let names = Set(kept.map(\.name))
        let queuedByName = (try? await WebhookWorker.blocking { try reader.queuedWebhookRows() }) ?? [:]
        for (name, queued) in queuedByName.sorted(by: { $0.key < $1.key }) where !names.contains(name) {
            logger.warning(
                "deliveries queued for a webhook no longer configured: kept until it is again",
                metadata: ["webhook": "\(name)", "queued": "\(queued)"])
        }
    }

    /// After a commit: wakes the workers whose rows it queued.
    func committed(_ names: Set<String>) {
        guard !names.isEmpty else { return }
        for worker in workers.withLock({ $0 }) where names.contains(worker.name) { worker.wake() }
    }

    /// Stops every worker (what is in flight stays queued), then the client. All stop starting
    /// deliveries at once, and their grace runs side by side: stopped one after another, a stop
    /// with eight receivers that never answer took 40 s, and the webhooks not stopped yet kept
    /// starting deliveries that a clean stop then cut off.
    func stop() async {
        let running = workers.withLock { workers in
            defer { workers = [] }
            return workers
        }
        for worker in running { worker.drain() }
        await withDiscardingTaskGroup { group in
            for worker in running { group.addTask { await worker.stop() } }
        }
        try? await client.shutdown()
        journal.withLock { opened in
            if let opened, opened.reader !== opened.writer { try? opened.reader.close() }
            opened = nil
        }
    }

    private func worker(_ name: String) -> WebhookWorker? {
        workers.withLock { $0.first { $0.name == name } }
    }

    // MARK: What the HTTP interface asks (docs/webhooks.md "Webhooks")

    private func openJournal() throws -> (writer: Journal, reader: Journal) {
        guard let journal = journal.withLock({ $0 }) else { throw JournalError.closed(path: "") }
        return journal
    }

    /// Each webhook in force with its queue's counts. Synchronous: reads the journal.
    func status() throws -> [WebhookStatus] {
        let journal = try openJournal().reader
        return try workers.withLock { $0 }.map { worker in
            let queue = try journal.webhookQueueState(webhook: worker.name)
            let stats = worker.stats.withLock { $0 }
            return WebhookStatus(
                name: worker.name, url: WebhookStatus.redacted(worker.target.settings.url), queued: queue.queued,
                delivered: stats.delivered, retrying: queue.retrying, dead: queue.dead,
                lastError: stats.lastError,
                lastDeliveredAt: stats.lastDeliveredAt, nextAttemptAt: queue.nextAttemptAt)
        }
    }

    /// A page of a webhook's dead letters; `nil` for a webhook not in force.
    func deadLetters(_ name: String, after: Int64?, limit: Int) throws -> WebhookDeadPage? {
        guard worker(name) != nil else { return nil }
        let journal = try openJournal().reader
        let page = try journal.webhookDeadLetters(webhook: name, after: after, limit: limit)
        return WebhookDeadPage(dead: page.dead, next: page.next)
    }

    /// Queues a webhook's dead letters again; how many, `nil` for a webhook not in force.
    func redeliver(_ name: String) throws -> Int? {
        guard let worker = worker(name) else { return nil }
        let journal = try openJournal().writer
        let count = try journal.redeliverWebhookDeadLetters(webhook: name, now: Date().timeIntervalSince1970)
        if count > 0 {
            logger.info("webhook dead letters requeued", metadata: ["webhook": "\(name)", "count": "\(count)"])
            worker.wake()
        }
        return count
    }
}
