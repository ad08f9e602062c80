import Foundation

/// A polygon, with its holes, in a local equirectangular projection around its centre. For
/// fences up to 100 km across the projection's scale error stays under 1%, and under a centimetre
/// for a fence of a few hundred metres. A class: the engine copies geometry references on its hot
/// path, and one reference is cheaper to copy than the arrays inside.
final class PolygonGeometry: Sendable {
    /// Open rings, outer first, as validated.
    let rings: [[Coordinate]]
    private let originLat: Double
    private let originLon: Double
    private let metersPerDegreeLon: Double
    private let planar: PlanarRings
    /// The outer ring's box in local metres.
    let minX: Double, maxX: Double, minY: Double, maxY: Double
    /// Radius of the largest circle inside the polygon (clear of its holes), in metres.
    let inscribedRadius: Double

    /// `rings` must be validated: open, outer first, each simple, holes inside and apart.
    init(rings: [[Coordinate]]) {
        self.rings = rings
        let first = rings[0][0]
        // Unwrap longitudes around the first vertex so a polygon across ±180 stays contiguous.
        let unwrapped = rings.map { ring in ring.map { (lat: $0.lat, lon: first.lon + Earth.wrappedLongitudeDelta($0.lon, from: first.lon)) } }
        let outerLats = unwrapped[0].map(\.lat), outerLons = unwrapped[0].map(\.lon)
        let originLat = (outerLats.min()! + outerLats.max()!) / 2
        let originLon = (outerLons.min()! + outerLons.max()!) / 2
        let metersPerDegreeLon = Earth.metersPerDegree * max(cos(originLat * .pi / 180), 1e-9)
        let local = unwrapped.map { ring in
            ring.map { (x: ($0.lon - originLon) * metersPerDegreeLon, y: ($0.lat - originLat) * Earth.metersPerDegree) }
        }
        self.originLat = originLat
        self.originLon = originLon
        self.metersPerDegreeLon = metersPerDegreeLon
        let planar = PlanarRings(local)
        self.planar = planar
        let outerXs = local[0].map(\.x), outerYs = local[0].map(\.y)
        let minX = outerXs.min()!, maxX = outerXs.max()!, minY = outerYs.min()!, maxY = outerYs.max()!
        (self.minX, self.maxX, self.minY, self.maxY) = (minX, maxX, minY, maxY)
        // A decimetre for fences of a few hundred metres, coarser for huge ones: the cap is
        // compared with GPS accuracies, and a long strip whose whole spine is deepest would
        // otherwise be searched cell by cell along its length.
        let precision = max(0.1, 1e-3 * min(maxX - minX, maxY - minY))
        inscribedRadius = InscribedCircle.radius(
            minX: minX, maxX: maxX, minY: minY, maxY: maxY, centroid: Self.centroid(local[0]), precision: precision,
            signedDistance: { x, y in planar.signedDistance(x, y) })
    }

    /// docs/rules.md "The rules": half the radius of the largest inscribed circle, as a circle's cap is
    /// half its radius.
    var halfInscribedSize: Double { inscribedRadius / 2 }

    /// The area centroid of a ring; a good first guess for the deepest point (a hole there only
    /// makes the search start lower).
    private static func centroid(_ ring: [(x: Double, y: Double)]) -> (x: Double, y: Double) {
        var twiceArea = 0.0, cx = 0.0, cy = 0.0
        for i in ring.indices {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            let cross = a.x * b.y - b.x * a.y
            twiceArea += cross
            cx += (a.x + b.x) * cross
            cy += (a.y + b.y) * cross
        }
        guard twiceArea != 0 else { return ring[0] }
        return (cx / (3 * twiceArea), cy / (3 * twiceArea))
    }

    func localPoint(_ point: Coordinate) -> (x: Double, y: Double) {
        let x = Earth.wrappedLongitudeDelta(point.lon, from: originLon) * metersPerDegreeLon
        let y = (point.lat - originLat) * Earth.metersPerDegree
        return (x, y)
    }

    /// Positive inside, negative outside (or in a hole), in metres: the distance to the nearest ring.
    func signedDistance(to point: Coordinate) -> Double {
        let (px, py) = localPoint(point)
        return planar.signedDistance(px, py)
    }

    /// At least how far `point` is from the outer ring's box, in metres (0 inside the box).
    func distanceToBox(_ x: Double, _ y: Double) -> Double {
        let dx = max(minX - x, 0, x - maxX), dy = max(minY - y, 0, y - maxY)
        return (dx * dx + dy * dy).squareRoot()
    }

    func boundingBox(grownBy margin: Double) -> BoundingBox {
        let minX = minX - margin, maxX = maxX + margin
        let minY = minY - margin, maxY = maxY + margin
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
