import HTTPTypes
import Hummingbird

/// Hummingbird's router answers a path it has no route for and a method a path has no route for
/// with the same plain 404; docs/http.md "The HTTP interface" wants `{"error": reason}`, and a 405 with
/// `Allow` for the second. So the methods of every path are noted as its routes are added
/// (``MethodNotingRouter``), and a request no route took is looked up among them, through a router
/// of its own that resolves paths as the first does.
struct UnroutedRequests: RouterMiddleware {
    typealias Context = APIRequestContext

    private let methods: RouterResponder<Context>

    init(_ noted: NotedMethods) {
        let router = Router(context: Context.self)
        for (path, methods) in noted.paths {
            // HEAD goes wherever GET does and is not named in Allow, as before the router.
            let allowed = methods.filter { $0 != .head }
            router.get(path) { _, _ -> Response in throw PathMethods(allowed: allowed) }
        }
        self.methods = router.buildResponder()
    }

    /// Added to the router after every route, so that it wraps only the router's not-found
    /// responder: a routed request never passes here.
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            var head = request.head
            head.method = .get
            do {
                _ = try await methods.respond(to: Request(head: head, body: request.body), context: context)
            } catch let path as PathMethods {
                throw HTTPProblem.methodNotAllowed(request.method, allowed: path.allowed)
            }
            throw HTTPProblem.notFound("no such path: \(context.target.path)")
        }
    }
}

/// What a path's noted methods answer in ``UnroutedRequests``' router.
private struct PathMethods: Error {
    let allowed: [HTTPRequest.Method]
}

/// Adds routes to Hummingbird's `Router` and notes each path's methods, in the order they are
/// added (the order `Allow` names them in). Groups made from it add their routes through it too.
struct MethodNotingRouter: RouterMethods {
    typealias Context = APIRequestContext

    let router: Router<Context>
    let noted: NotedMethods

    @discardableResult
    func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == Context {
        router.on(path, method: method, responder: responder)
        noted.add(method, path)
        return self
    }

    @discardableResult
    func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}

/// The methods of each path, while routes are added (one task, at start).
final class NotedMethods {
    private(set) var paths: [(path: RouterPath, methods: [HTTPRequest.Method])] = []

    func add(_ method: HTTPRequest.Method, _ path: RouterPath) {
        if let index = paths.firstIndex(where: { $0.path.components == path.components }) {
            paths[index].methods.append(method)
        } else {
            paths.append((path, [method]))
        }
    }
}
