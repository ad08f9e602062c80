import Foundation
import GeofenceEngine

/// Distances on the sphere as the judge measures them. Ground truth must not reuse the engine's
/// geometry: a bug there would move expected and received alerts together and still score clean.
enum JudgeGeometry {
    /// The Earth's mean radius in metres: the rules measure on a sphere, and at fence scales its
    /// error against the ellipsoid is far below GPS error.
    static let earthRadius = 6_371_008.8
    static let metersPerDegree = earthRadius * .pi / 180

    /// The squared distance from (0, 0) to the segment a→b on a local plane in metres: to its
    /// nearest point, ends included.
    static func squaredDistanceToSegment(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Double {
        let ex = bx - ax, ey = by - ay
        let squaredLength = ex * ex + ey * ey
        let along = squaredLength > 0 ? min(1, max(0, -(ax * ex + ay * ey) / squaredLength)) : 0
        let cx = ax + along * ex, cy = ay + along * ey
        return cx * cx + cy * cy
    }

    /// Great-circle distance in metres (haversine, in its atan2 form: well conditioned from
    /// centimetres to antipodes).
    static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let lat1 = a.lat * .pi / 180, lat2 = b.lat * .pi / 180
        let halfDLat = sin((lat2 - lat1) / 2)
        let halfDLon = sin((b.lon - a.lon) * .pi / 360)
        let h = halfDLat * halfDLat + cos(lat1) * cos(lat2) * halfDLon * halfDLon
        return 2 * earthRadius * atan2(h.squareRoot(), max(0, 1 - h).squareRoot())
    }

    /// How far `point` is inside a circle: positive inside, negative outside, metres.
    static func depth(of point: Coordinate, inCircle center: Coordinate, radius: Double) -> Double {
        radius - distance(center, point)
    }

    /// `radius` brought into `[lower, upper]`; a range given upside down collapses to `lower`,
    /// the smallest radius the service allows.
    static func clamp(radius: Double, lower: Double, upper: Double) -> Double {
        if radius < lower { return lower }
        if radius > upper { return max(upper, lower) }
        return radius
    }
}
