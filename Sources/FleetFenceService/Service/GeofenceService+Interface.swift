import FleetFenceCodecs
import FleetFenceJournal
import GeofenceEngine

/// What the HTTP interface asks of the running service: fence writes through the same path as the
/// MQTT `set` topic, readiness, and the history (docs/http.md "The HTTP interface").
extension GeofenceService {
    /// What a write of a definition (a fence, a tour) did.
    public enum Write<Held: Sendable>: Sendable {
        case created(Held)
        case replaced(Held)
        case deleted
        case notFound
        case invalid(String)
    }

    /// The service cannot take the request now (starting, stopping, journal failed).
    public struct Unavailable: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }
    }

    /// `PUT /api/fences/{id}`: the body as a `<prefix>/fences/<id>/set` payload. Returns once the
    /// change is journaled and its registry entry published.
    public func putFence(id: String, body: [UInt8]) async throws(Unavailable) -> Write<Fence> {
        guard !body.isEmpty else {
            return .invalid("the body is empty: a fence definition is expected (DELETE removes a fence)")
        }
        let now = GeofenceService.now()
        return try await command { $0.setFence(id: id, payload: body, now: now) }
    }

    /// `DELETE /api/fences/{id}`: as an empty `set` payload; devices inside exit.
    public func deleteFence(id: String) async throws(Unavailable) -> Write<Fence> {
        let now = GeofenceService.now()
        return try await command { $0.setFence(id: id, payload: [], now: now) }
    }

    /// `PUT /api/tours/{id}`: the body as a `<prefix>/tours/<id>/set` payload.
    public func putTour(id: String, body: [UInt8]) async throws(Unavailable) -> Write<TourDefinition> {
        guard !body.isEmpty else {
            return .invalid("the body is empty: a tour definition is expected (DELETE removes a tour)")
        }
        return try await command { $0.setTour(id: id, payload: body) }
    }

    /// `DELETE /api/tours/{id}`.
    public func deleteTour(id: String) async throws(Unavailable) -> Write<TourDefinition> {
        try await command { $0.setTour(id: id, payload: []) }
    }

    /// One step of the core that answers its caller, which hears once the step is journaled and
    /// published: what a `set` payload would do, through the same code.
    private func command<Held: Sendable>(
        _ decide: (inout GeofenceCore) -> (Effects, GeofenceCore.CommandOutcome<Held>)
    ) async throws(Unavailable) -> Write<Held> {
        let loop = try runningLoop()
        let outcome = loop.stepReturning(decide)
        await loop.writer.waitUntilDelivered()
        if let failure = loop.writer.failure { throw Unavailable(reason: "the journal cannot be written: \(failure)") }
        return switch outcome {
        case let .set(held, created): created ? .created(held) : .replaced(held)
        case .deleted: .deleted
        case .unknown: .notFound
        case let .rejected(reason): .invalid(reason)
        }
    }

    private func runningLoop() throws(Unavailable) -> CoreLoop {
        guard isReady, let loop = running.withLock({ $0?.loop }) else {
            throw Unavailable(reason: "the service is not ready")
        }
        return loop
    }

    /// Why the service is not ready, empty when it is (`GET /readyz`): connected to the broker,
    /// the journal open and writable, the fences file applied.
    public var notReadyReasons: [String] {
        guard let running = running.withLock({ $0 }) else { return ["starting: the journal is not open yet"] }
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

    /// A page of the journal's history, from a connection of its own. Synchronous: call it off
    /// any event loop.
    public func events(_ query: EventQuery) throws -> EventPage {
        guard let history = running.withLock({ $0?.history }) else {
            throw Unavailable(reason: "the journal is not open")
        }
        return try history.events(query)
    }
}

/// Positions over HTTP (docs/trackers.md "Connecting trackers").
extension GeofenceService {
    private static let ingestSlice = 500

    /// What became of one position sent over HTTP.
    public enum IngestOutcome: Sendable, Equatable {
        case accepted
        /// Not newer than the device's latest sample.
        case stale
        /// Deliberately not a position (an OwnTracks message of another `_type`).
        case ignored(String)
        case rejected(String)
    }

    /// Positions decoded by the HTTP interface, through the same core step as MQTT positions: the
    /// same engine, journal, alerts and counters. Returns once their effects are journaled and
    /// published. `source` names the request in the log (`POST /api/positions`).
    public func ingest(
        _ items: [Result<ForeignPosition, PositionRejection>], source: String
    ) async throws(Unavailable) -> [IngestOutcome] {
        let loop = try runningLoop()
        let arrival = GeofenceService.now()
        var outcomes: [GeofenceCore.PositionOutcome] = []
        outcomes.reserveCapacity(items.count)
        // A slice per hold of the lock, in order: a batch of 10,000 never holds MQTT positions up
        // for all of them at once.
        for start in stride(from: 0, to: items.count, by: Self.ingestSlice) {
            let slice = Array(items[start..<min(items.count, start + Self.ingestSlice)])
            outcomes += loop.stepReturning { $0.ingest(slice, source: source, arrival: arrival) }
        }
        await loop.writer.waitUntilDelivered()
        if let failure = loop.writer.failure { throw Unavailable(reason: "the journal cannot be written: \(failure)") }
        return outcomes.map { outcome in
            switch outcome {
            case .accepted: .accepted
            case .stale: .stale
            case let .ignored(reason): .ignored(reason)
            case let .rejected(reason): .rejected(reason)
            }
        }
    }
}

/// The webhooks' side of the HTTP interface (docs/webhooks.md "Webhooks"). Synchronous, reading the
/// journal: call them off any event loop.
extension GeofenceService {
    private func webhookDispatcher() throws(Unavailable) -> WebhookDispatcher {
        guard let webhooks = running.withLock({ $0?.webhooks }) else { throw Unavailable(reason: "the service is not running") }
        return webhooks
    }

    /// `GET /api/webhooks`.
    public func webhookStatus() throws -> [WebhookStatus] {
        try webhookDispatcher().status()
    }

    /// `GET /api/webhooks/{name}/dead`; `nil` for an unknown webhook.
    public func webhookDeadLetters(_ name: String, after: Int64?, limit: Int) throws -> WebhookDeadPage? {
        try webhookDispatcher().deadLetters(name, after: after, limit: limit)
    }

    /// `POST /api/webhooks/{name}/redeliver`; `nil` for an unknown webhook.
    public func redeliverWebhook(_ name: String) throws -> Int? {
        try webhookDispatcher().redeliver(name)
    }
}
