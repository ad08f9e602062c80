/// Why a simulation could not run.
public enum SimulationError: Error, Sendable, CustomStringConvertible {
    case invalidOptions(String)
    case subscriptionTimedOut
    case connectFailed(String)

    public var description: String {
        switch self {
        case let .invalidOptions(reason): "invalid options: \(reason)"
        case .subscriptionTimedOut: "the broker did not acknowledge the alerts subscription"
        case let .connectFailed(reason): "cannot connect: \(reason)"
        }
    }
}
