import FleetFenceCodecs
import FleetFenceJournal
import GeofenceEngine

/// What the HTTP interface asks of the running service (``FleetFenceAPI``): fence and tour writes
/// through the same path as their MQTT `set` topics, readiness, the history, positions over HTTP
/// and the webhooks' queues (docs/http.md "The HTTP interface").
extension GeofenceService: FleetFenceAPI {
    public var httpSettings: ServiceConfiguration.HTTPSettings { configuration.http }

    public func metricsExposition() -> [UInt8] { metrics.exposition() }

    public func putFence(id: String, body: [UInt8]) async throws(ServiceUnavailable) -> DefinitionWrite<Fence> {
        guard !body.isEmpty else {
            return .invalid("the body is empty: a fence definition is expected (DELETE removes a fence)")
        }
        let now = clock.now
        return try await command { $0.setFence(id: id, payload: body, now: now) }
    }

    public func deleteFence(id: String) async throws(ServiceUnavailable) -> DefinitionWrite<Fence> {
        let now = clock.now
        return try await command { $0.setFence(id: id, payload: [], now: now) }
    }

    public func putTour(id: String, body: [UInt8]) async throws(ServiceUnavailable) -> DefinitionWrite<TourDefinition> {
        guard !body.isEmpty else {
            return .invalid("the body is empty: a tour definition is expected (DELETE removes a tour)")
        }
        return try await command { $0.setTour(id: id, payload: body) }
    }

    public func deleteTour(id: String) async throws(ServiceUnavailable) -> DefinitionWrite<TourDefinition> {
        try await command { $0.setTour(id: id, payload: []) }
    }

    /// One step of the core that answers its caller, which hears once the step is journaled and
    /// published: what a `set` payload would do, through the same code.
    private func command<Held: Sendable>(
        _ decide: (inout GeofenceCore) -> (Effects, GeofenceCore.CommandOutcome<Held>)
    ) async throws(ServiceUnavailable) -> DefinitionWrite<Held> {
        let loop = try runningLoop()
        let outcome = loop.stepReturning(decide)
        await loop.writer.waitUntilDelivered()
        if let failure = loop.writer.failure { throw ServiceUnavailable(reason: "the journal cannot be written: \(failure)") }
        return switch outcome {
        case let .set(held, created): created ? .created(held) : .replaced(held)
        case .deleted: .deleted
        case .unknown: .notFound
        case let .rejected(reason): .invalid(reason)
        }
    }

    private func runningLoop() throws(ServiceUnavailable) -> CoreLoop {
        guard isReady, let loop = running.withLock({ $0?.loop }) else {
            throw ServiceUnavailable(reason: "the service is not ready")
        }
        return loop
    }

    /// Connected to the broker, the journal open and writable, the fences file applied.
    public var notReadyReasons: [String] {
        guard let running = running.withLock({ $0 }) else { return ["starting: " + readiness.step] }
        var reasons: [String] = []
        if let failure = running.loop.writer.failure { reasons.append("the journal cannot be written: \(failure)") }
        if !running.client.isConnected { reasons.append("not connected to the MQTT broker") }
        let refused = running.client.refusedSubscriptions
        if !refused.isEmpty {
            reasons.append("the broker refused the subscription to \(refused.joined(separator: ", ")) (its ACL?)")
        }
        if !isReady { reasons.append("the fences file is not applied yet") }
        return reasons
    }

    /// From a connection of its own, so that a reader never waits for the writer.
    public func events(_ query: EventQuery) throws -> EventPage {
        guard let history = running.withLock({ $0?.history }) else {
            throw ServiceUnavailable(reason: "the journal is not open")
        }
        return try history.events(query)
    }
}

/// Positions over HTTP (docs/trackers.md "Connecting trackers").
extension GeofenceService {
    private static let ingestSlice = 500

    /// The same engine, journal, alerts and counters as an MQTT position.
    public func ingest(
        _ items: [Result<ForeignPosition, PositionRejection>], source: String
    ) async throws(ServiceUnavailable) -> [IngestOutcome] {
        let loop = try runningLoop()
        let arrival = clock.now
        var outcomes: [GeofenceCore.PositionOutcome] = []
        outcomes.reserveCapacity(items.count)
        // A slice per hold of the lock, in order: a batch of 10,000 never holds MQTT positions up
        // for all of them at once.
        for start in stride(from: 0, to: items.count, by: Self.ingestSlice) {
            let slice = Array(items[start..<min(items.count, start + Self.ingestSlice)])
            outcomes += loop.stepReturning { $0.ingest(slice, source: source, arrival: arrival) }
        }
        await loop.writer.waitUntilDelivered()
        if let failure = loop.writer.failure { throw ServiceUnavailable(reason: "the journal cannot be written: \(failure)") }
        return outcomes.map { outcome in
            switch outcome {
            case .accepted: .accepted
            case .late: .late
            case .stale: .stale
            case .tooLate: .tooLate
            case let .ignored(reason): .ignored(reason)
            case let .rejected(reason): .rejected(reason)
            }
        }
    }
}

/// The webhooks' side of the HTTP interface (docs/webhooks.md "Webhooks"): synchronous, reading the journal.
extension GeofenceService {
    private func webhookDispatcher() throws(ServiceUnavailable) -> WebhookDispatcher {
        guard let webhooks = running.withLock({ $0?.webhooks }) else { throw ServiceUnavailable(reason: "the service is not running") }
        return webhooks
    }

    public func webhookStatus() throws -> [WebhookStatus] {
        try webhookDispatcher().status()
    }

    public func webhookDeadLetters(_ name: String, after: Int64?, limit: Int) throws -> WebhookDeadPage? {
        try webhookDispatcher().deadLetters(name, after: after, limit: limit)
    }

    public func redeliverWebhook(_ name: String) throws -> Int? {
        try webhookDispatcher().redeliver(name)
    }
}
