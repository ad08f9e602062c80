import FleetFenceService
import GeofenceEngine
import Hummingbird

/// Every route of the interface (docs/http.md "The HTTP interface"), on Hummingbird's router: its path
/// and methods, the query parameters it takes (``QueryParameters``), and on a write the
/// ``WriteGuard``, in that order, then the endpoint. A wrong method is a 405 naming the path's
/// methods, an unknown path a 404 (``UnroutedRequests``).
enum APIRoutes {
    static func responder(api: any FleetFenceAPI, writes: WriteGuard, map: MapEndpoint) -> APIResponder {
        let router = Router(context: APIRequestContext.self)
        let noted = NotedMethods()
        let routes = MethodNotingRouter(router: router, noted: noted)

        // The map, its files, the document and the probes.
        let health = HealthEndpoint(api: api)
        routes.group().add(middleware: QueryParameters.none)
            .getOrHead("/") { _, _ in map.map() }
            .getOrHead("assets") { _, _ in try map.asset([]) }
            .getOrHead("assets/**") { _, context in try map.asset(Array(context.target.segments.dropFirst())) }
            .getOrHead("openapi.json") { _, _ in Response.json(map.openAPI) }
            .getOrHead("healthz") { _, _ in health.healthz() }
            .getOrHead("readyz") { _, _ in health.readyz() }
            .getOrHead("metrics") { _, _ in health.metrics() }

        let apiRoutes = routes.group("api")
        apiRoutes.group("memory").add(middleware: QueryParameters(HealthEndpoint.memoryParameters))
            .getOrHead { _, context in try await health.memory(context.target) }
        definitions(DefinitionsEndpoint.fences(api), at: "fences", on: apiRoutes, writes: writes)
        definitions(DefinitionsEndpoint.tours(api), at: "tours", on: apiRoutes, writes: writes)

        let devices = DevicesEndpoint(api: api)
        apiRoutes.group("devices").add(middleware: QueryParameters(DevicesEndpoint.parameters))
            .getOrHead { _, context in try devices.list(context.target) }
        apiRoutes.group("devices").add(middleware: QueryParameters.none)
            .getOrHead(":id") { _, context in try devices.get(context.pathParameter("id")) }

        let events = EventsEndpoint(api: api)
        apiRoutes.group("events").add(middleware: QueryParameters(EventsEndpoint.parameters))
            .getOrHead { _, context in try await events.list(context.target) }

        let stream = StreamEndpoint(api: api)
        apiRoutes.group("stream").add(middleware: QueryParameters.none)
            .get { _, _ in try stream.open() }
            .head { _, _ in stream.head() }

        let webhooks = WebhooksEndpoint(api: api)
        apiRoutes.group("webhooks").add(middleware: QueryParameters.none)
            .getOrHead { _, _ in try await webhooks.list() }
            .add(middleware: writes)
            .post(":name/redeliver") { request, context in
                // It takes no body, but one over 1 MiB is refused as on every write (413).
                _ = try await RequestBody.read(request)
                return try await webhooks.redeliver(context.pathParameter("name"))
            }
        apiRoutes.group("webhooks").add(middleware: QueryParameters(WebhooksEndpoint.deadParameters))
            .getOrHead(":name/dead") { _, context in try await webhooks.dead(context.pathParameter("name"), context.target) }

        let positions = PositionsEndpoint(api: api)
        apiRoutes.group("positions").add(middleware: QueryParameters.none).add(middleware: writes)
            .post { request, _ in try await positions.positions(request) }
        // Any query parameter: the app sends its fields there. HEAD is no way to send a position.
        apiRoutes.group("osmand").add(middleware: writes)
            .get { request, context in try await positions.osmAnd(request, context.target) }
            .post { request, context in try await positions.osmAnd(request, context.target) }
        apiRoutes.group("owntracks").add(middleware: QueryParameters(PositionsEndpoint.ownTracksParameters)).add(middleware: writes)
            .post { request, context in try await positions.ownTracks(request, context.target) }

        // After every route: it wraps the router's not-found responder alone.
        router.add(middleware: UnroutedRequests(noted))
        return APIResponder(router: router.buildResponder())
    }

    /// `/api/fences`, `/api/tours` and one of each: GET for anyone, PUT and DELETE guarded.
    private static func definitions<Held>(
        _ endpoint: DefinitionsEndpoint<Held>, at path: RouterPath, on apiRoutes: RouterGroup<APIRequestContext>, writes: WriteGuard
    ) {
        apiRoutes.group(path).add(middleware: QueryParameters.none)
            .getOrHead { _, _ in endpoint.list() }
            .getOrHead(":id") { _, context in try endpoint.get(context.pathParameter("id")) }
            .add(middleware: writes)
            .put(":id") { request, context in try await endpoint.put(context.pathParameter("id"), request) }
            .delete(":id") { _, context in try await endpoint.delete(context.pathParameter("id")) }
    }
}

extension RouterMethods {
    /// GET, and HEAD answered by the same handler, as the interface did before the router.
    @discardableResult
    func getOrHead(
        _ path: RouterPath = "", use handler: @Sendable @escaping (Request, Context) async throws -> Response
    ) -> Self {
        get(path, use: handler).head(path, use: handler)
    }
}
