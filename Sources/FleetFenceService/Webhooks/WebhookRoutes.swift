import GeofenceEngine

/// Which webhooks an alert or tour event is queued for: the core asks it for each alert, so the
/// decision is the core's and the queue rows ride in the alert's own transaction.
struct WebhookRoutes: Sendable {
    private struct Route: Sendable {
        var name: String
        /// Empty: every event.
        var events: Set<String>
        var devices: [Glob]
        var fences: [Glob]
    }

    private let routes: [Route]

    init(_ webhooks: [WebhookSettings] = []) {
        routes = webhooks.map { webhook in
            Route(
                name: webhook.name, events: webhook.events, devices: webhook.devices.map(Glob.init),
                fences: webhook.fences.map(Glob.init))
        }
    }

    var isEmpty: Bool { routes.isEmpty }

    /// The names of the webhooks `transition` matches; a tour event's fence is its stop's fence.
    func matching(_ transition: Transition) -> [String] {
        guard !routes.isEmpty else { return [] }
        let event = transition.event.rawValue
        return routes.compactMap { route in
            guard route.events.isEmpty || route.events.contains(event),
                route.devices.contains(where: { $0.matches(transition.device) }),
                route.fences.contains(where: { $0.matches(transition.fenceID) })
            else { return nil }
            return route.name
        }
    }
}
