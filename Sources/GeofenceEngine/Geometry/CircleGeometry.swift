/// A circle on the sphere, ready for fast signed-distance queries.
struct CircleGeometry: Sendable {
    let center: Coordinate
    let radius: Double

    /// Positive inside, negative outside, in metres.
    func signedDistance(to point: Coordinate) -> Double {
        radius - Earth.distance(center, point)
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
