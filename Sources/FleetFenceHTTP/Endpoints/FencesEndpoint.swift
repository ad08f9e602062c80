import FleetFenceCodecs
import FleetFenceService
import HTTPTypes
import Hummingbird

/// `/api/fences` and `/api/fences/{id}`: the fences held, as GeoJSON; PUT and DELETE with exactly
/// the semantics of `<prefix>/fences/<id>/set`, through the same path in the service.
struct FencesEndpoint: Sendable {
    let service: GeofenceService
    let writes: WriteGuard

    /// Bodies past this are refused before they are read to the end.
    static let maxBody = 1 << 20

    func list(_ target: RequestTarget) throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: [])
        return .json(FenceFeatureEncoding.encodeCollection(service.readModel.fences), status: .ok)
    }

    func get(_ id: String, _ target: RequestTarget) throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: [])
        guard let fence = service.readModel.fence(id: id) else { throw .notFound("no fence \(id)") }
        return .json(FenceFeatureEncoding.encode(fence))
    }

    func put(_ id: String, _ request: Request, _ target: RequestTarget) async throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: [])
        try writes.check(request)
        let body = try await Self.body(of: request)
        let outcome: GeofenceService.FenceWrite
        do {
            outcome = try await service.putFence(id: id, body: body)
        } catch {
            throw HTTPProblem(status: .serviceUnavailable, reason: error.reason)
        }
        switch outcome {
        case let .created(fence): return .json(FenceFeatureEncoding.encode(fence), status: .created)
        case let .replaced(fence): return .json(FenceFeatureEncoding.encode(fence), status: .ok)
        case let .invalid(reason): throw .badRequest(reason)
        case .deleted, .notFound: throw HTTPProblem(status: .internalServerError, reason: "a PUT deleted \(id)")
        }
    }

    func delete(_ id: String, _ request: Request, _ target: RequestTarget) async throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: [])
        try writes.check(request)
        let outcome: GeofenceService.FenceWrite
        do {
            outcome = try await service.deleteFence(id: id)
        } catch {
            throw HTTPProblem(status: .serviceUnavailable, reason: error.reason)
        }
        switch outcome {
        case .deleted: return Response(status: .noContent)
        case .notFound: throw .notFound("no fence \(id)")
        case let .invalid(reason): throw .badRequest(reason)
        case .created, .replaced: throw HTTPProblem(status: .internalServerError, reason: "a DELETE set \(id)")
        }
    }

    /// The body, at most ``maxBody`` bytes: a longer one is refused as soon as it is known to be.
    static func body(of request: Request) async throws(HTTPProblem) -> [UInt8] {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBody {
            throw HTTPProblem(status: .contentTooLarge, reason: "the body has \(length) bytes, at most \(maxBody) are accepted")
        }
        do {
            var buffer = try await request.body.collect(upTo: maxBody)
            return buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch {
            throw HTTPProblem(status: .contentTooLarge, reason: "the body is larger than \(maxBody) bytes")
        }
    }
}
