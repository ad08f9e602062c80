/// Why a fence definition was rejected. Rejected definitions are never clamped or repaired.
public enum FenceError: Error, Sendable, Hashable, CustomStringConvertible {
    case emptyID
    /// Longer than ``IDRules/maxBytes`` bytes of UTF-8.
    case idTooLong(bytes: Int)
    case invalidCoordinate(lat: Double, lon: Double)
    case invalidRadius(Double)
    /// A plain polygon's ring with fewer than 3 distinct points.
    case tooFewPoints(distinct: Int)
    /// All rings (or a corridor's line) together.
    case tooManyPoints(count: Int, limit: Int)
    /// A plain polygon's ring crosses or touches itself.
    case selfIntersecting
    /// A ring of a polygon with holes or of a MultiPolygon (named as in "hole 2", "polygon 1's
    /// outer ring") with fewer than 3 distinct points.
    case ringTooFewPoints(ring: String, distinct: Int)
    case ringSelfIntersecting(ring: String)
    /// Two rings cross or touch (a hole and its outer ring, two holes, two polygons).
    case ringsCross(String, String)
    /// A hole not inside its polygon's outer ring.
    case holeOutsideOuterRing(hole: String)
    /// A hole inside another hole of the same polygon.
    case holeInsideHole(String, String)
    case emptyMultiPolygon
    /// A corridor's line with fewer than 2 distinct points.
    case lineTooShort(distinct: Int)
    case invalidBuffer(Double)
    case invalidDwell(Double)
    case dwellWithoutDuration
    /// `notify` names an event that is not a fence's to choose (speeding, tour events).
    case notNotifiable(AlertEvent)
    case invalidSpeedLimit(Double)
    case invalidExpiry(Double)
    case invalidDevices(DevicePatternError)

    public var description: String {
        switch self {
        case .emptyID: "fence id is empty"
        case let .idTooLong(bytes): "fence id is \(bytes) bytes long, at most \(IDRules.maxBytes) are accepted"
        case let .invalidCoordinate(lat, lon): "coordinate lat=\(lat) lon=\(lon) is not a finite WGS84 position"
        case let .invalidRadius(r): "radius \(r) is not a positive finite number of metres"
        case let .tooFewPoints(n): "polygon has \(n) distinct points, needs at least 3"
        case let .tooManyPoints(n, limit): "fence has \(n) points, at most \(limit) are accepted"
        case .selfIntersecting: "polygon ring intersects itself"
        case let .ringTooFewPoints(ring, n): "\(ring) has \(n) distinct points, needs at least 3"
        case let .ringSelfIntersecting(ring): "\(ring) intersects itself"
        case let .ringsCross(a, b): "\(a) and \(b) cross or touch"
        case let .holeOutsideOuterRing(hole): "\(hole) is not inside its outer ring"
        case let .holeInsideHole(inner, outer): "\(inner) lies inside \(outer)"
        case .emptyMultiPolygon: "MultiPolygon has no polygons"
        case let .lineTooShort(n): "corridor line has \(n) distinct points, needs at least 2"
        case let .invalidBuffer(b): "buffer_m \(b) is not a positive finite number of metres"
        case let .invalidDwell(s): "dwell_s \(s) is not a positive finite number of seconds"
        case .dwellWithoutDuration: "notify has dwell but dwell_s is missing"
        case let .notNotifiable(event): "notify may name enter, exit and dwell, not \(event.rawValue)"
        case let .invalidSpeedLimit(v): "speed_limit_kmh \(v) is not a positive finite number of km/h"
        case let .invalidExpiry(t): "expires_at \(t) is not a finite time"
        case let .invalidDevices(error): "devices: \(error)"
        }
    }
}
