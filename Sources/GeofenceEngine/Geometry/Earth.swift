import Foundation

/// The sphere the engine measures on. The mean radius keeps great-circle distances within
/// about 0.5% of WGS84 geodesics, far below GPS error at fence scales.
public enum Earth {
    public static let meanRadiusMeters = 6_371_008.8
    static let metersPerDegree = meanRadiusMeters * .pi / 180

    /// Great-circle distance (haversine: well conditioned at short range, where fences live).
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let lat1 = a.lat * .pi / 180
        let lat2 = b.lat * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (b.lon - a.lon) * .pi / 180
        let s1 = sin(dLat / 2)
        let s2 = sin(dLon / 2)
        let h = s1 * s1 + cos(lat1) * cos(lat2) * s2 * s2
        return 2 * meanRadiusMeters * asin(min(1, h.squareRoot()))
    }

    /// Longitude difference folded into [-180, 180), so that fences across the antimeridian work.
    static func wrappedLongitudeDelta(_ lon: Double, from origin: Double) -> Double {
        var delta = lon - origin
        if delta >= 180 { delta -= 360 } else if delta < -180 { delta += 360 }
        return delta
    }
}
