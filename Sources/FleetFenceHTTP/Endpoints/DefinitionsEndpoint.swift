import FleetFenceCodecs
import FleetFenceService
import GeofenceEngine
import Hummingbird

/// `/api/fences` and `/api/tours`, and one of each by id: what the service holds, and PUT and
/// DELETE with exactly the semantics of their `<prefix>/<kind>/<id>/set` topics, through the same
/// code in the service (docs/http.md "The HTTP interface").
struct DefinitionsEndpoint<Held: Sendable>: Sendable {
    /// `fence`, `tour`: named in a 404.
    let kind: String
    let writes: WriteGuard
    /// Everything held, encoded as `GET` lists it.
    let list: @Sendable () -> [UInt8]
    let held: @Sendable (String) -> Held?
    let encode: @Sendable (Held) -> [UInt8]
    let put: @Sendable (String, [UInt8]) async throws(GeofenceService.Unavailable) -> GeofenceService.Write<Held>
    let delete: @Sendable (String) async throws(GeofenceService.Unavailable) -> GeofenceService.Write<Held>

    func list(_ target: RequestTarget) throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: [])
        return .json(list())
    }

    func get(_ id: String, _ target: RequestTarget) throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: [])
        guard let held = held(id) else { throw .notFound("no \(kind) \(id)") }
        return .json(encode(held))
    }

    func put(_ id: String, _ request: Request, _ target: RequestTarget) async throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: [])
        try writes.check(request)
        let body = try await RequestBody.read(request)
        return try answer(await written { () async throws(GeofenceService.Unavailable) in try await put(id, body) }, id: id)
    }

    func delete(_ id: String, _ request: Request, _ target: RequestTarget) async throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: [])
        try writes.check(request)
        return try answer(await written { () async throws(GeofenceService.Unavailable) in try await delete(id) }, id: id)
    }

    private func written(
        _ write: () async throws(GeofenceService.Unavailable) -> GeofenceService.Write<Held>
    ) async throws(HTTPProblem) -> GeofenceService.Write<Held> {
        do {
            return try await write()
        } catch {
            throw HTTPProblem(status: .serviceUnavailable, reason: error.reason)
        }
    }

    /// 201 created, 200 replaced (the body as held), 204 deleted, 404 unknown, 400 invalid.
    private func answer(_ outcome: GeofenceService.Write<Held>, id: String) throws(HTTPProblem) -> Response {
        switch outcome {
        case let .created(held): return .json(encode(held), status: .created)
        case let .replaced(held): return .json(encode(held), status: .ok)
        case .deleted: return Response(status: .noContent)
        case .notFound: throw .notFound("no \(kind) \(id)")
        case let .invalid(reason): throw .badRequest(reason)
        }
    }
}

extension DefinitionsEndpoint where Held == Fence {
    /// Fences as GeoJSON, as held (effective radius or buffer).
    static func fences(_ service: GeofenceService, writes: WriteGuard) -> Self {
        DefinitionsEndpoint(
            kind: "fence", writes: writes,
            list: { FenceFeatureEncoding.encodeCollection(service.readModel.fences) },
            held: { service.readModel.fence(id: $0) }, encode: { FenceFeatureEncoding.encode($0) },
            put: { id, body throws(GeofenceService.Unavailable) in try await service.putFence(id: id, body: body) },
            delete: { id throws(GeofenceService.Unavailable) in try await service.deleteFence(id: id) })
    }
}

extension DefinitionsEndpoint where Held == TourDefinition {
    /// Tours in the plain form of their `set` payloads, listed as `{"tours": [...]}`.
    static func tours(_ service: GeofenceService, writes: WriteGuard) -> Self {
        DefinitionsEndpoint(
            kind: "tour", writes: writes,
            list: {
                var bytes = Array(#"{"tours":["#.utf8)
                for (index, tour) in service.readModel.tours.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    bytes += TourDefinitionEncoding.encode(tour)
                }
                return bytes + Array("]}".utf8)
            },
            held: { service.readModel.tour(id: $0) }, encode: { TourDefinitionEncoding.encode($0) },
            put: { id, body throws(GeofenceService.Unavailable) in try await service.putTour(id: id, body: body) },
            delete: { id throws(GeofenceService.Unavailable) in try await service.deleteTour(id: id) })
    }
}
