import Foundation
import GeofenceEngine

/// A polygon fence (its outer ring and its holes) as the judge measures it. Each query is
/// measured in a plane tangent at the queried point (east and north metres, scaled for that
/// point's latitude), so a distance is exact where it matters, at the point; edges are straight
/// in latitude and longitude.
struct JudgePolygon: Sendable {
    /// The outer ring's first vertex: offsets are taken from it.
    let origin: Coordinate
    /// The outer ring's vertices as degree offsets from `origin`, longitudes unwrapped so that a
    /// ring across ±180 stays in one piece; open (no closing repeat) and without repeated neighbours.
    let lonOffsets: [Double]
    let latOffsets: [Double]
    /// Each hole the same way, from the same origin.
    let holes: [(lonOffsets: [Double], latOffsets: [Double])]

    /// `points`: a valid ring (at least three distinct points), closed or not; `holes` valid rings
    /// inside it, apart from each other (the service refuses anything else).
    init(points: [Coordinate], holes: [[Coordinate]] = []) {
        let ring = Self.open(points)
        let origin = ring[0]
        self.origin = origin
        lonOffsets = ring.map { Self.lonOffset($0.lon, from: origin.lon) }
        latOffsets = ring.map { $0.lat - origin.lat }
        self.holes = holes.map(Self.open).map { hole in
            (hole.map { Self.lonOffset($0.lon, from: origin.lon) }, hole.map { $0.lat - origin.lat })
        }
    }

    private static func open(_ points: [Coordinate]) -> [Coordinate] {
        var ring: [Coordinate] = []
        for point in points where point != ring.last { ring.append(point) }
        if ring.count > 1, ring.first == ring.last { ring.removeLast() }
        return ring
    }

    /// Positive inside, negative outside: metres to the nearest edge of any ring (docs/topics-and-payloads.md "Fences":
    /// inside a hole is outside, and a hole's edge is a boundary like the outer ring's).
    func signedDistance(to point: Coordinate) -> Double {
        signedDistance(lonOffset: Self.lonOffset(point.lon, from: origin.lon), latOffset: point.lat - origin.lat)
    }

    /// The same for a point given as offsets from `origin`.
    func signedDistance(lonOffset px: Double, latOffset py: Double) -> Double {
        let ky = JudgeGeometry.metersPerDegree
        let kx = ky * max(cos((origin.lat + py) * .pi / 180), 1e-9)
        let outer = Self.measure(lonOffsets, latOffsets, px, py, kx, ky)
        var nearest = outer.nearest
        // Inside the outer ring and in none of the holes, each by its own winding number.
        var inside = outer.winding != 0
        for hole in holes {
            let measured = Self.measure(hole.lonOffsets, hole.latOffsets, px, py, kx, ky)
            nearest = min(nearest, measured.nearest)
            if measured.winding != 0 { inside = false }
        }
        return inside ? nearest : -nearest
    }

    /// One ring against the query point: its winding number around it and the distance to its
    /// nearest edge, metres.
    private static func measure(
        _ lons: [Double], _ lats: [Double], _ px: Double, _ py: Double, _ kx: Double, _ ky: Double
    ) -> (winding: Int, nearest: Double) {
        var winding = 0
        var nearestSquared = Double.infinity
        var ax = (lons[lons.count - 1] - px) * kx
        var ay = (lats[lats.count - 1] - py) * ky
        for i in lons.indices {
            // Edge a→b with the query point at (0, 0).
            let bx = (lons[i] - px) * kx, by = (lats[i] - py) * ky
            // Winding number: an edge passing the point upward with the point on its left
            // counts +1, downward with the point on its right -1.
            let side = ax * by - bx * ay
            if ay <= 0, by > 0, side > 0 { winding += 1 }
            if ay > 0, by <= 0, side < 0 { winding -= 1 }
            nearestSquared = min(nearestSquared, JudgeGeometry.squaredDistanceToSegment(ax, ay, bx, by))
            ax = bx
            ay = by
        }
        return (winding, nearestSquared.squareRoot())
    }

    /// The outer ring's box, in degrees (longitudes unwrapped around `origin`).
    var lats: ClosedRange<Double> { (origin.lat + latOffsets.min()!)...(origin.lat + latOffsets.max()!) }
    var lons: ClosedRange<Double> { (origin.lon + lonOffsets.min()!)...(origin.lon + lonOffsets.max()!) }

    /// A longitude's offset from `reference` in (-180, 180].
    static func lonOffset(_ lon: Double, from reference: Double) -> Double {
        let offset = remainder(lon - reference, 360)
        return offset == -180 ? 180 : offset
    }
}
