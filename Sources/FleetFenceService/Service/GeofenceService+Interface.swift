import FleetFenceJournal
import GeofenceEngine

/// What the HTTP interface asks of the running service: fence writes through the same path as the
/// MQTT `set` topic, readiness, and the history (README, "The HTTP interface").
extension GeofenceService {
    /// What a fence write did.
    public enum FenceWrite: Sendable {
        case created(Fence)
        case replaced(Fence)
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
    public func putFence(id: String, body: [UInt8]) async throws(Unavailable) -> FenceWrite {
        guard !body.isEmpty else {
            return .invalid("the body is empty: a fence definition is expected (DELETE removes a fence)")
        }
        return try await fenceCommand(id: id, payload: body)
    }

    /// `DELETE /api/fences/{id}`: as an empty `set` payload; devices inside exit.
    public func deleteFence(id: String) async throws(Unavailable) -> FenceWrite {
        try await fenceCommand(id: id, payload: [])
    }

    private func fenceCommand(id: String, payload: [UInt8]) async throws(Unavailable) -> FenceWrite {
        let loop = try runningLoop()
        let now = GeofenceService.now()
        let outcome = loop.stepReturning { $0.setFence(id: id, payload: payload, now: now) }
        await loop.writer.waitUntilDelivered()
        if let failure = loop.writer.failure { throw Unavailable(reason: "the journal cannot be written: \(failure)") }
        return switch outcome {
        case let .set(fence, created): created ? .created(fence) : .replaced(fence)
        case .deleted: .deleted
        case .unknown: .notFound
        case let .rejected(reason): .invalid(reason)
        }
    }

    /// What a tour write did.
    public enum TourWrite: Sendable {
        case created(TourDefinition)
        case replaced(TourDefinition)
        case deleted
        case notFound
        case invalid(String)
    }

    /// `PUT /api/tours/{id}`: the body as a `<prefix>/tours/<id>/set` payload.
    public func putTour(id: String, body: [UInt8]) async throws(Unavailable) -> TourWrite {
        guard !body.isEmpty else {
            return .invalid("the body is empty: a tour definition is expected (DELETE removes a tour)")
        }
        return try await tourCommand(id: id, payload: body)
    }

    /// `DELETE /api/tours/{id}`.
    public func deleteTour(id: String) async throws(Unavailable) -> TourWrite {
        try await tourCommand(id: id, payload: [])
    }

    private func tourCommand(id: String, payload: [UInt8]) async throws(Unavailable) -> TourWrite {
        let loop = try runningLoop()
        let outcome = loop.stepReturning { $0.setTour(id: id, payload: payload) }
        await loop.writer.waitUntilDelivered()
        if let failure = loop.writer.failure { throw Unavailable(reason: "the journal cannot be written: \(failure)") }
        return switch outcome {
        case let .set(tour, created): created ? .created(tour) : .replaced(tour)
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
