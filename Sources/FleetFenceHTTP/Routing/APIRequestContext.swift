import Hummingbird

/// A request's context: Hummingbird's own, and the request's path and query decoded once, before
/// routing (``APIResponder``), so that every route and middleware reads the same values.
public struct APIRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    var target = RequestTarget.empty

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// A path parameter of the route (`:id`), percent-decoded to its exact bytes.
    func pathParameter(_ name: String) -> String {
        // The route declares it: the router never calls a handler without it.
        RequestTarget.pathParameter(parameters.get(name) ?? "")
    }
}
