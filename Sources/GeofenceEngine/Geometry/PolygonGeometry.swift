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
    let area: Double
    let perimeter: Double

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
        var twiceArea = 0.0
        var perimeter = 0.0
        for i in 0..<(xs.count - 1) {
            twiceArea += xs[i] * ys[i + 1] - xs[i + 1] * ys[i]
            perimeter += ((xs[i + 1] - xs[i]) * (xs[i + 1] - xs[i]) + (ys[i + 1] - ys[i]) * (ys[i + 1] - ys[i])).squareRoot()
        }
        area = abs(twiceArea) / 2
        self.perimeter = perimeter
    }

    /// Area over perimeter approximates half the inscribed radius: exact for a circle (r/2) and for
    /// regular polygons (half the apothem), up to 2x high for long thin shapes. The contract's
    /// "half its inscribed size" cap uses it as an honest approximation.
    var halfInscribedSize: Double { perimeter > 0 ? area / perimeter : 0 }

    func localPoint(_ point: Coordinate) -> (x: Double, y: Double) {
        let x = Earth.wrappedLongitudeDelta(point.lon, from: originLon) * metersPerDegreeLon
        let y = (point.lat - originLat) * Earth.metersPerDegree
        return (x, y)
    }

    /// Positive inside, negative outside, in metres: the distance to the nearest edge.
    func signedDistance(to point: Coordinate) -> Double {
        let (px, py) = localPoint(point)
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
