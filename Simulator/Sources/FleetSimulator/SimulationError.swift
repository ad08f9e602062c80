/// Why a simulation could not run.
public enum SimulationError: Error, Sendable, CustomStringConvertible {
    case invalidOptions(String)
    case subscriptionTimedOut
    case subscriptionRefused([String])
    case connectFailed(String)
    /// The service answered a tour's `set` on its errors topic.
    case tourRefused(tour: String, reason: String)

    public var description: String {
        switch self {
        case let .invalidOptions(reason): "invalid options: \(reason)"
        case .subscriptionTimedOut: "the broker did not acknowledge the alerts subscription"
        case let .subscriptionRefused(filters):
            "the broker refused the subscription to \(filters.joined(separator: ", ")) (its ACL, or a cluster node down)"
        case let .connectFailed(reason): "cannot connect: \(reason)"
        case let .tourRefused(tour, reason): "the service refused tour \(tour): \(reason)"
        }
    }
}
