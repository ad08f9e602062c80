import FleetFenceService
import GeofenceEngine
import HTTPTypes
import Hummingbird
import Logging

/// Routes every request of the interface (docs/http.md "The HTTP interface"). Written out rather than
/// through a router, so that each path answers its own 404 and 405 with `{"error": reason}`, and
/// ids in paths keep their exact bytes.
struct APIResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let fences: DefinitionsEndpoint<Fence>
    let tours: DefinitionsEndpoint<TourDefinition>
    let devices: DevicesEndpoint
    let events: EventsEndpoint
    let stream: StreamEndpoint
    let health: HealthEndpoint
    let map: MapEndpoint
    let positions: PositionsEndpoint
    let webhooks: WebhooksEndpoint
    let logger: Logger

    func respond(to request: Request, context: Context) async throws -> Response {
        do {
            return try await route(request)
        } catch {
            return error.response
        }
    }

    private func route(_ request: Request) async throws(HTTPProblem) -> Response {
        let target = try RequestTarget(path: request.uri.path, query: request.uri.query)
        let method = request.method
        let path = target.segments
        func only(_ allowed: HTTPRequest.Method...) throws(HTTPProblem) {
            guard allowed.contains(method) || (method == .head && allowed.contains(.get)) else {
                throw .methodNotAllowed(method, allowed: allowed)
            }
        }
        switch path.first {
        case nil:
            try only(.get)
            return map.map()
        case "assets":
            try only(.get)
            return try map.asset(Array(path.dropFirst()))
        case "openapi.json" where path.count == 1:
            try only(.get)
            return .json(map.openAPI)
        case "healthz" where path.count == 1:
            try only(.get)
            return try health.healthz(target)
        case "readyz" where path.count == 1:
            try only(.get)
            return try health.readyz(target)
        case "metrics" where path.count == 1:
            try only(.get)
            return try health.metrics(target)
        case "api":
            return try await api(Array(path.dropFirst()), request, target, only)
        default:
            throw .notFound("no such path: \(request.uri.path)")
        }
    }

    private func api(
        _ path: [String], _ request: Request, _ target: RequestTarget,
        _ only: (HTTPRequest.Method...) throws(HTTPProblem) -> Void
    ) async throws(HTTPProblem) -> Response {
        switch (path.first, path.count) {
        case ("fences", 1):
            try only(.get)
            return try fences.list(target)
        case ("fences", 2):
            try only(.get, .put, .delete)
            switch request.method {
            case .put: return try await fences.put(path[1], request, target)
            case .delete: return try await fences.delete(path[1], request, target)
            default: return try fences.get(path[1], target)
            }
        case ("tours", 1):
            try only(.get)
            return try tours.list(target)
        case ("tours", 2):
            try only(.get, .put, .delete)
            switch request.method {
            case .put: return try await tours.put(path[1], request, target)
            case .delete: return try await tours.delete(path[1], request, target)
            default: return try tours.get(path[1], target)
            }
        case ("devices", 1):
            try only(.get)
            return try devices.list(target)
        case ("devices", 2):
            try only(.get)
            return try devices.get(path[1], target)
        case ("events", 1):
            try only(.get)
            return try await events.list(target)
        case ("webhooks", 1):
            try only(.get)
            return try await webhooks.list(target)
        case ("webhooks", 3) where path[2] == "dead":
            try only(.get)
            return try await webhooks.dead(path[1], target)
        case ("webhooks", 3) where path[2] == "redeliver":
            try only(.post)
            return try await webhooks.redeliver(path[1], request, target)
        case ("stream", 1):
            try only(.get)
            return try stream.open(target)
        case ("positions", 1):
            try only(.post)
            return try await positions.positions(request, target)
        case ("osmand", 1):
            // HEAD is no way to send a position: only what the app sends.
            guard request.method == .get || request.method == .post else {
                throw .methodNotAllowed(request.method, allowed: [.get, .post])
            }
            return try await positions.osmAnd(request, target)
        case ("owntracks", 1):
            try only(.post)
            return try await positions.ownTracks(request, target)
        default:
            throw .notFound("no such path: \(request.uri.path)")
        }
    }
}
