/// A circle on the sphere, ready for fast signed-distance queries.
struct CircleGeometry: Sendable {
    let center: Coordinate
    let radius: Double
    /// 32 bytes in all: the centre's latitude in radians is a multiplication away, and a smaller
    /// probe is one cache line less per candidate.
    private let cosCenterLat: Double

    init(center: Coordinate, radius: Double) {
        self.center = center
        self.radius = radius
        cosCenterLat = cos(center.lat * .pi / 180)
    }

    /// Positive inside, negative outside, in metres.
    func signedDistance(to point: Coordinate) -> Double {
        radius - Earth.distance(center, point)
    }

    /// The same by haversine, with the point's latitude in radians and its cosine computed once
    /// per sample by the caller rather than once per fence.
    func signedDistance(latRadians: Double, cosLat: Double, lon: Double) -> Double {
        let s1 = sin((latRadians - center.lat * .pi / 180) / 2)
        let s2 = sin((lon - center.lon) * .pi / 360)
        let h = s1 * s1 + cosCenterLat * cosLat * s2 * s2
        return radius - 2 * Earth.meanRadiusMeters * asin(min(1, h.squareRoot()))
    }

    /// The circle grown by `margin` metres, in degrees. Near the poles the box covers every longitude.
    func boundingBox(grownBy margin: Double) -> BoundingBox {
        let reach = (radius + margin) / Earth.metersPerDegree
        let minLat = max(-90, center.lat - reach)
        let maxLat = min(90, center.lat + reach)
        let cosLat = cos(max(abs(minLat), abs(maxLat)) * .pi / 180)
        if maxLat >= 90 || minLat <= -90 || cosLat < 1e-6 || reach / cosLat >= 180 {
            return BoundingBox(minLat: minLat, maxLat: maxLat, minLon: -180, maxLon: 180 + 360)
        }
        let lonReach = reach / cosLat
        return BoundingBox(minLat: minLat, maxLat: maxLat, minLon: center.lon - lonReach, maxLon: center.lon + lonReach)
    }
}

import Foundation
