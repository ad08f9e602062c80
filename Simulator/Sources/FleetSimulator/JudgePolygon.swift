import Foundation
import GeofenceEngine

/// A polygon fence's ring as the judge measures it. Each query is measured in a plane tangent at
/// the queried point (east and north metres, scaled for that point's latitude), so a distance
/// is exact where it matters, at the point; edges are straight in latitude and longitude.
struct JudgePolygon: Sendable {
    /// The ring's first vertex: offsets are taken from it.
    let origin: Coordinate
    /// Vertices as degree offsets from `origin`, longitudes unwrapped so that a ring across ±180
    /// stays in one piece; open (no closing repeat) and without repeated neighbours.
    let lonOffsets: [Double]
    let latOffsets: [Double]

    /// `points`: a valid ring (at least three distinct points), closed or not.
    init(points: [Coordinate]) {
        var ring: [Coordinate] = []
        for point in points where point != ring.last { ring.append(point) }
        if ring.count > 1, ring.first == ring.last { ring.removeLast() }
        origin = ring[0]
        lonOffsets = ring.map { Self.lonOffset($0.lon, from: ring[0].lon) }
        latOffsets = ring.map { $0.lat - ring[0].lat }
    }

    /// Positive inside, negative outside: metres to the nearest edge.
    func signedDistance(to point: Coordinate) -> Double {
        signedDistance(lonOffset: Self.lonOffset(point.lon, from: origin.lon), latOffset: point.lat - origin.lat)
    }

    /// The same for a point given as offsets from `origin`.
    func signedDistance(lonOffset px: Double, latOffset py: Double) -> Double {
        let ky = JudgeGeometry.metersPerDegree
        let kx = ky * max(cos((origin.lat + py) * .pi / 180), 1e-9)
        var winding = 0
        var nearestSquared = Double.infinity
        var ax = (lonOffsets[lonOffsets.count - 1] - px) * kx
        var ay = (latOffsets[latOffsets.count - 1] - py) * ky
        for i in lonOffsets.indices {
            // Edge a→b with the query point at (0, 0).
            let bx = (lonOffsets[i] - px) * kx, by = (latOffsets[i] - py) * ky
            // Winding number: an edge passing the point upward with the point on its left
            // counts +1, downward with the point on its right -1.
            let side = ax * by - bx * ay
            if ay <= 0, by > 0, side > 0 { winding += 1 }
            if ay > 0, by <= 0, side < 0 { winding -= 1 }
            let ex = bx - ax, ey = by - ay
            let squaredLength = ex * ex + ey * ey
            let along = squaredLength > 0 ? min(1, max(0, -(ax * ex + ay * ey) / squaredLength)) : 0
            let cx = ax + along * ex, cy = ay + along * ey
            nearestSquared = min(nearestSquared, cx * cx + cy * cy)
            ax = bx
            ay = by
        }
        let distance = nearestSquared.squareRoot()
        return winding != 0 ? distance : -distance
    }

    /// A longitude's offset from `reference` in (-180, 180].
    static func lonOffset(_ lon: Double, from reference: Double) -> Double {
        let offset = remainder(lon - reference, 360)
        return offset == -180 ? 180 : offset
    }
}
