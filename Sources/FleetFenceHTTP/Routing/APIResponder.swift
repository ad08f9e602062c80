import Hummingbird

/// The interface's responder (docs/http.md "The HTTP interface"): reads a request's path and query once,
/// refusing a bad percent-encoding with 400 before any route is looked for, and hands the request
/// to Hummingbird's router (``APIRoutes``).
public struct APIResponder: HTTPResponder {
    public typealias Context = APIRequestContext

    let router: RouterResponder<Context>

    /// Paths whose query carries a position or its device: their endpoints refuse a query that
    /// does not decode themselves, counted as a rejected position.
    /// Matched on the decoded segments, as the router matches them: `/api/%6Fsmand` is the same
    /// endpoint.
    static let positionQueries: Set<[String]> = [["api", "osmand"], ["api", "owntracks"]]

    public func respond(to request: Request, context: Context) async throws -> Response {
        var context = context
        do {
            context.target = try RequestTarget(path: request.uri.path, query: request.uri.query)
        } catch {
            return error.response
        }
        if let problem = context.target.queryProblem, !Self.positionQueries.contains(context.target.segments) {
            return problem.response
        }
        // The router matches raw segments, ids in paths are their decoded bytes: a path with an
        // escape is routed by its decoded segments (see `RequestTarget.routedPath`).
        guard let routed = context.target.routedPath else {
            return try await router.respond(to: request, context: context)
        }
        var head = request.head
        head.path = routed + (request.uri.query.map { "?" + $0 } ?? "")
        return try await router.respond(to: Request(head: head, body: request.body), context: context)
    }
}
