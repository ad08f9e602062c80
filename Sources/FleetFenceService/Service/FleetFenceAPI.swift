import FleetFenceCodecs
import FleetFenceJournal
import GeofenceEngine

/// What the HTTP interface asks of the running service (docs/http.md "The HTTP interface"), and nothing
/// more: the interface is written against this, not against ``GeofenceService``, so that what it
/// may do to the service is visible in one place. ``GeofenceService`` is the one conformer; the
/// tests route requests to the real one in-process.
public protocol FleetFenceAPI: Sendable {
    // MARK: Configuration

    /// The `http.*` keys: the token file writes need, the map's tile template.
    var httpSettings: ServiceConfiguration.HTTPSettings { get }

    // MARK: Reads

    /// What readers see without taking the service's lock: fences, tours and devices as
    /// committed, and the live feed the stream subscribes to.
    var readModel: ReadModel { get }

    /// A page of the journal's history (`GET /api/events`). Synchronous and blocking (SQLite):
    /// call it off any event loop.
    func events(_ query: EventQuery) throws -> EventPage

    // MARK: Fence and tour writes

    /// `PUT /api/fences/{id}`: the body as a `<prefix>/fences/<id>/set` payload, through the same
    /// code. Returns once the change is journaled and its registry entry published.
    func putFence(id: String, body: [UInt8]) async throws(ServiceUnavailable) -> DefinitionWrite<Fence>
    /// `DELETE /api/fences/{id}`: as an empty `set` payload; devices inside exit.
    func deleteFence(id: String) async throws(ServiceUnavailable) -> DefinitionWrite<Fence>
    /// `PUT /api/tours/{id}`: the body as a `<prefix>/tours/<id>/set` payload.
    func putTour(id: String, body: [UInt8]) async throws(ServiceUnavailable) -> DefinitionWrite<TourDefinition>
    /// `DELETE /api/tours/{id}`.
    func deleteTour(id: String) async throws(ServiceUnavailable) -> DefinitionWrite<TourDefinition>

    // MARK: Positions over HTTP

    /// Positions the interface decoded (docs/trackers.md "Connecting trackers"), through the same core step
    /// as MQTT positions. Returns once their effects are journaled and published. `source` names
    /// the request in the log (`POST /api/positions`).
    func ingest(_ items: [Result<ForeignPosition, PositionRejection>], source: String) async throws(ServiceUnavailable)
        -> [IngestOutcome]

    // MARK: Webhooks (docs/webhooks.md "Webhooks"); synchronous and blocking, off any event loop

    /// `GET /api/webhooks`.
    func webhookStatus() throws -> [WebhookStatus]
    /// `GET /api/webhooks/{name}/dead`; `nil` for an unknown webhook.
    func webhookDeadLetters(_ name: String, after: Int64?, limit: Int) throws -> WebhookDeadPage?
    /// `POST /api/webhooks/{name}/redeliver`: how many were queued again; `nil` for an unknown webhook.
    func redeliverWebhook(_ name: String) throws -> Int?

    // MARK: Health

    /// Why the service is not ready, empty when it is (`GET /readyz`).
    var notReadyReasons: [String] { get }
    /// `GET /metrics`: the Prometheus text format.
    func metricsExposition() -> [UInt8]
    /// `GET /api/memory`: what each part holds for the devices, and with `heapFree` what the
    /// allocator holds free. Walks every device, a slice per hold of the core's lock: blocking,
    /// call it off any event loop.
    func memory(heapFree: Bool) throws(ServiceUnavailable) -> MemoryReport
}

/// What a write of a definition (a fence, a tour) did.
public enum DefinitionWrite<Held: Sendable>: Sendable {
    case created(Held)
    case replaced(Held)
    case deleted
    case notFound
    case invalid(String)
}

/// The service cannot take the request now (starting, stopping, journal failed).
public struct ServiceUnavailable: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }

    public init(reason: String) {
        self.reason = reason
    }
}

/// What became of one position sent over HTTP.
public enum IngestOutcome: Sendable, Equatable {
    case accepted
    /// Accepted older than the device's latest sample: held, to be merged (docs/rules.md "Late samples").
    case late
    /// A repeat of a time the device holds, or not newer than its latest when nothing is merged.
    case stale
    /// Older than the device's latest, and too old to merge: dropped.
    case tooLate
    /// Deliberately not a position (an OwnTracks message of another `_type`).
    case ignored(String)
    case rejected(String)
}
