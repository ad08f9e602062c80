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
    /// Everything held, encoded as `GET` lists it.
    let all: @Sendable () -> [UInt8]
    let held: @Sendable (String) -> Held?
    let encode: @Sendable (Held) -> [UInt8]
    let put: @Sendable (String, [UInt8]) async throws(ServiceUnavailable) -> DefinitionWrite<Held>
    let delete: @Sendable (String) async throws(ServiceUnavailable) -> DefinitionWrite<Held>

    func list() -> Response {
        .json(all())
    }

    func get(_ id: String) throws(HTTPProblem) -> Response {
        guard let held = held(id) else { throw .notFound("no \(kind) \(id)") }
        return .json(encode(held))
    }

    func put(_ id: String, _ request: Request) async throws(HTTPProblem) -> Response {
        let body = try await RequestBody.read(request)
        return try answer(await written { () async throws(ServiceUnavailable) in try await put(id, body) }, id: id)
    }

    func delete(_ id: String) async throws(HTTPProblem) -> Response {
        try answer(await written { () async throws(ServiceUnavailable) in try await delete(id) }, id: id)
    }

    private func written(
        _ write: () async throws(ServiceUnavailable) -> DefinitionWrite<Held>
    ) async throws(HTTPProblem) -> DefinitionWrite<Held> {
        do {
            return try await write()
        } catch {
            throw HTTPProblem(status: .serviceUnavailable, reason: error.reason)
        }
    }

    /// 201 created, 200 replaced (the body as held), 204 deleted, 404 unknown, 400 invalid.
    private func answer(_ outcome: DefinitionWrite<Held>, id: String) throws(HTTPProblem) -> Response {
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
    static func fences(_ api: any FleetFenceAPI) -> Self {
        DefinitionsEndpoint(
            kind: "fence",
            all: { FenceFeatureEncoding.encodeCollection(api.readModel.fences) },
            held: { api.readModel.fence(id: $0) }, encode: { FenceFeatureEncoding.encode($0) },
            put: { id, body throws(ServiceUnavailable) in try await api.putFence(id: id, body: body) },
            delete: { id throws(ServiceUnavailable) in try await api.deleteFence(id: id) })
    }
}

extension DefinitionsEndpoint where Held == TourDefinition {
    /// Tours in the plain form of their `set` payloads, listed as `{"tours": [...]}`.
    static func tours(_ api: any FleetFenceAPI) -> Self {
        DefinitionsEndpoint(
            kind: "tour",
            all: {
                var bytes = Array(#"{"tours":["#.utf8)
                for (index, tour) in api.readModel.tours.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    bytes += TourDefinitionEncoding.encode(tour)
                }
                return bytes + Array("]}".utf8)
            },
            held: { api.readModel.tour(id: $0) }, encode: { TourDefinitionEncoding.encode($0) },
            put: { id, body throws(ServiceUnavailable) in try await api.putTour(id: id, body: body) },
            delete: { id throws(ServiceUnavailable) in try await api.deleteTour(id: id) })
    }
}
