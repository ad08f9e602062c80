import FleetFenceCodecs
import FleetFenceService
import GeofenceEngine
import Hummingbird

/// `/api/tours` and `/api/tours/{id}`: the tours held; PUT and DELETE with exactly the semantics
/// of `<prefix>/tours/<id>/set` (README, "Tours").
struct ToursEndpoint: Sendable {
    let service: GeofenceService
    let writes: WriteGuard

    func list(_ target: RequestTarget) throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: [])
        var bytes = Array(#"{"tours":["#.utf8)
        for (index, tour) in service.readModel.tours.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += TourDefinitionEncoding.encode(tour)
        }
        bytes += Array("]}".utf8)
        return .json(bytes)
    }

    func get(_ id: String, _ target: RequestTarget) throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: [])
        guard let tour = service.readModel.tour(id: id) else { throw .notFound("no tour \(id)") }
        return .json(TourDefinitionEncoding.encode(tour))
    }

    func put(_ id: String, _ request: Request, _ target: RequestTarget) async throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: [])
        try writes.check(request)
        let body = try await FencesEndpoint.body(of: request)
        let outcome: GeofenceService.TourWrite
        do {
            outcome = try await service.putTour(id: id, body: body)
        } catch {
            throw HTTPProblem(status: .serviceUnavailable, reason: error.reason)
        }
        switch outcome {
        case let .created(tour): return .json(TourDefinitionEncoding.encode(tour), status: .created)
        case let .replaced(tour): return .json(TourDefinitionEncoding.encode(tour), status: .ok)
        case let .invalid(reason): throw .badRequest(reason)
        case .deleted, .notFound: throw HTTPProblem(status: .internalServerError, reason: "a PUT deleted \(id)")
        }
    }

    func delete(_ id: String, _ request: Request, _ target: RequestTarget) async throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: [])
        try writes.check(request)
        let outcome: GeofenceService.TourWrite
        do {
            outcome = try await service.deleteTour(id: id)
        } catch {
            throw HTTPProblem(status: .serviceUnavailable, reason: error.reason)
        }
        switch outcome {
        case .deleted: return Response(status: .noContent)
        case .notFound: throw .notFound("no tour \(id)")
        case let .invalid(reason): throw .badRequest(reason)
        case .created, .replaced: throw HTTPProblem(status: .internalServerError, reason: "a DELETE set \(id)")
        }
    }
}
