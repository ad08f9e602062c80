import Hummingbird

/// The query parameters a route takes: any other is refused with 400 naming it
/// (docs/http.md "The HTTP interface"). Declared with the route, and on a writing route before ``WriteGuard``: a write
/// with an unknown parameter is a bad request whoever sends it.
struct QueryParameters: RouterMiddleware {
    typealias Context = APIRequestContext

    let allowed: Set<String>

    init(_ allowed: Set<String>) {
        self.allowed = allowed
    }

    /// A route that takes none.
    static let none = QueryParameters([])

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        try context.target.checkQuery(allowed: allowed)
        return try await next(request, context)
    }
}
