import Foundation

/// A simple polygon in a local equirectangular projection around its centre. For fences up to
/// 100 km across the projection's scale error stays under 1%, and under a centimetre for a
/// fence of a few hundred metres. A class: the engine copies geometry references on its hot
/// path, and one reference is cheaper to copy than the arrays inside.
final class PolygonGeometry: Sendable {
    let vertices: [Coordinate]
    private let originLat: Double
    private let originLon: Double
    private let metersPerDegreeLon: Double
    /// Ring in local metres, closed (first point repeated at the end).
    private let xs: [Double]
    private let ys: [Double]
    /// Radius of the largest circle inside the ring, in metres.
    let inscribedRadius: Double

    /// `vertices` must be validated: at least 3 distinct points, not self-intersecting, ring open.
    init(vertices: [Coordinate]) {
        self.vertices = vertices
        let first = vertices[0]
        // Unwrap longitudes around the first vertex so a ring across ±180 stays contiguous.
        let lons = vertices.map { first.lon + Earth.wrappedLongitudeDelta($0.lon, from: first.lon) }
        let lats = vertices.map(\.lat)
        let originLat = (lats.min()! + lats.max()!) / 2
        let originLon = (lons.min()! + lons.max()!) / 2
        let metersPerDegreeLon = Earth.metersPerDegree * max(cos(originLat * .pi / 180), 1e-9)
        var xs = lons.map { ($0 - originLon) * metersPerDegreeLon }
        var ys = lats.map { ($0 - originLat) * Earth.metersPerDegree }
        xs.append(xs[0])
        ys.append(ys[0])
        self.originLat = originLat
        self.originLon = originLon
        self.metersPerDegreeLon = metersPerDegreeLon
        self.xs = xs
        self.ys = ys
        let minX = xs.min()!, maxX = xs.max()!, minY = ys.min()!, maxY = ys.max()!
        // A decimetre for fences of a few hundred metres, coarser for huge ones: the cap is
        // compared with GPS accuracies, and a long strip whose whole spine is deepest would
        // otherwise be searched cell by cell along its length.
        let precision = max(0.1, 1e-3 * min(maxX - minX, maxY - minY))
        inscribedRadius = InscribedCircle.radius(
            minX: minX, maxX: maxX, minY: minY, maxY: maxY, centroid: Self.centroid(xs, ys), precision: precision,
            signedDistance: { x, y in Self.signedDistance(x, y, xs: xs, ys: ys) })
    }

    /// The contract's "half its inscribed size": half the radius of the largest inscribed circle,
    /// as a circle's cap is half its radius.
    var halfInscribedSize: Double { inscribedRadius / 2 }

    /// The area centroid of a closed ring; a good first guess for the deepest point.
    private static func centroid(_ xs: [Double], _ ys: [Double]) -> (x: Double, y: Double) {
        var twiceArea = 0.0, cx = 0.0, cy = 0.0
        for i in 0..<(xs.count - 1) {
            let cross = xs[i] * ys[i + 1] - xs[i + 1] * ys[i]
            twiceArea += cross
            cx += (xs[i] + xs[i + 1]) * cross
            cy += (ys[i] + ys[i + 1]) * cross
        }
        guard twiceArea != 0 else { return (xs[0], ys[0]) }
        return (cx / (3 * twiceArea), cy / (3 * twiceArea))
    }

    func localPoint(_ point: Coordinate) -> (x: Double, y: Double) {
        let x = Earth.wrappedLongitudeDelta(point.lon, from: originLon) * metersPerDegreeLon
        let y = (point.lat - originLat) * Earth.metersPerDegree
        return (x, y)
    }

    /// Positive inside, negative outside, in metres: the distance to the nearest edge.
    func signedDistance(to point: Coordinate) -> Double {
        let (px, py) = localPoint(point)
        return Self.signedDistance(px, py, xs: xs, ys: ys)
    }

    /// The same for a point in local metres, against a closed ring in local metres.
    private static func signedDistance(_ px: Double, _ py: Double, xs: [Double], ys: [Double]) -> Double {
        var inside = false
        var best = Double.infinity
        for i in 0..<(xs.count - 1) {
            let ax = xs[i], ay = ys[i], bx = xs[i + 1], by = ys[i + 1]
            if (ay > py) != (by > py) {
                let crossX = ax + (py - ay) / (by - ay) * (bx - ax)
                if px < crossX { inside.toggle() }
            }
            let ex = bx - ax, ey = by - ay
            let lengthSquared = ex * ex + ey * ey
            var t = lengthSquared > 0 ? ((px - ax) * ex + (py - ay) * ey) / lengthSquared : 0
            t = min(1, max(0, t))
            let dx = ax + t * ex - px, dy = ay + t * ey - py
            best = min(best, dx * dx + dy * dy)
        }
        let distance = best.squareRoot()
        return inside ? distance : -distance
    }

    func boundingBox(grownBy margin: Double) -> BoundingBox {
        let minX = xs.min()! - margin, maxX = xs.max()! + margin
        let minY = ys.min()! - margin, maxY = ys.max()! + margin
        let minLat = max(-90, originLat + minY / Earth.metersPerDegree)
        let maxLat = min(90, originLat + maxY / Earth.metersPerDegree)
        if minLat <= -90 || maxLat >= 90 || (maxX - minX) / metersPerDegreeLon >= 360 {
            return BoundingBox(minLat: minLat, maxLat: maxLat, minLon: -180, maxLon: 180 + 360)
        }
        return BoundingBox(
            minLat: minLat, maxLat: maxLat,
            minLon: originLon + minX / metersPerDegreeLon, maxLon: originLon + maxX / metersPerDegreeLon
        )
    }
}
