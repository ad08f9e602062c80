/// Why a fence definition was rejected. Rejected definitions are never clamped or repaired.
public enum FenceError: Error, Sendable, Hashable, CustomStringConvertible {
    case emptyID
    case invalidCoordinate(lat: Double, lon: Double)
    case invalidRadius(Double)
    case tooFewPoints(distinct: Int)
    case tooManyPoints(count: Int, limit: Int)
    case selfIntersecting
    case invalidDwell(Double)
    case dwellWithoutDuration
    /// `notify` names an event that is not a fence's to choose (speeding, tour events).
    case notNotifiable(AlertEvent)

    public var description: String {
        switch self {
        case .emptyID: "fence id is empty"
        case let .invalidCoordinate(lat, lon): "coordinate lat=\(lat) lon=\(lon) is not a finite WGS84 position"
        case let .invalidRadius(r): "radius \(r) is not a positive finite number of metres"
        case let .tooFewPoints(n): "polygon has \(n) distinct points, needs at least 3"
        case let .tooManyPoints(n, limit): "polygon has \(n) points, at most \(limit) are accepted"
        case .selfIntersecting: "polygon ring intersects itself"
        case let .invalidDwell(s): "dwell_s \(s) is not a positive finite number of seconds"
        case .dwellWithoutDuration: "notify has dwell but dwell_s is missing"
        case let .notNotifiable(event): "notify may name enter, exit and dwell, not \(event.rawValue)"
        }
    }
}
