/// The rings of polygons with holes and of MultiPolygons (docs/topics-and-payloads.md "Fences"): each ring simple,
/// no ring crossing or touching another, every hole inside its own outer ring and outside the
/// other holes. Computed in a plane of degrees (longitude unwrapped around the first vertex),
/// where crossing is the same question as on the map.
enum RingValidation {
    typealias Point = (x: Double, y: Double)

    /// One ring, open, with the name errors give it.
    struct Ring {
        var points: [Coordinate]
        var name: String
        var polygon: Int
        var isHole: Bool
    }

    /// `polygons`' rings (outer first), named for errors: a plain polygon's as "the outer ring"
    /// and "hole k", a MultiPolygon's as "polygon i's outer ring" and "polygon i's hole k", with
    /// i and k the indexes of GeoJSON's coordinates arrays.
    static func rings(of polygons: [PolygonRings], multi: Bool) -> [Ring] {
        var rings: [Ring] = []
        for (i, polygon) in polygons.enumerated() {
            let owner = multi ? "polygon \(i)'s " : ""
            rings.append(Ring(points: FenceValidation.openRing(polygon.outer), name: multi ? "\(owner)outer ring" : "the outer ring", polygon: i, isHole: false))
            for (k, hole) in polygon.holes.enumerated() {
                rings.append(Ring(points: FenceValidation.openRing(hole), name: "\(owner)hole \(k + 1)", polygon: i, isHole: true))
            }
        }
        return rings
    }

    /// Checks rings already open and within the point limit. A plain polygon without holes keeps
    /// the errors it always had (`tooFewPoints`, `selfIntersecting`).
    static func validate(_ rings: [Ring], plainOuterOnly: Bool) throws(FenceError) {
        for ring in rings {
            let distinct = Set(ring.points).count
            if distinct < 3 {
                throw plainOuterOnly ? .tooFewPoints(distinct: distinct) : .ringTooFewPoints(ring: ring.name, distinct: distinct)
            }
            if ring.points.count != distinct {
                throw plainOuterOnly ? .selfIntersecting : .ringSelfIntersecting(ring: ring.name)
            }
        }
        let origin = rings[0].points[0]
        let planes = rings.map { ring in ring.points.map { (x: Earth.wrappedLongitudeDelta($0.lon, from: origin.lon), y: $0.lat) } }
        if let (a, b) = firstCrossing(planes) {
            if a == b { throw plainOuterOnly ? .selfIntersecting : .ringSelfIntersecting(ring: rings[a].name) }
            throw .ringsCross(rings[min(a, b)].name, rings[max(a, b)].name)
        }
        // No ring touches another, so one vertex tells on which side of a ring a whole ring lies.
        for (h, hole) in rings.enumerated() where hole.isHole {
            guard let outer = rings.firstIndex(where: { $0.polygon == hole.polygon && !$0.isHole }) else { continue }
            if !contains(planes[outer], planes[h][0]) { throw .holeOutsideOuterRing(hole: hole.name) }
            for (other, otherHole) in rings.enumerated()
            where other != h && otherHole.isHole && otherHole.polygon == hole.polygon && contains(planes[other], planes[h][0]) {
                throw .holeInsideHole(hole.name, otherHole.name)
            }
        }
    }

    /// Even-odd point in ring (the point is on no edge: rings do not touch).
    static func contains(_ ring: [Point], _ p: Point) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in ring.indices {
            let a = ring[i], b = ring[j]
            if (a.y > p.y) != (b.y > p.y), p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) { inside.toggle() }
            j = i
        }
        return inside
    }

    /// The rings of the first two edges found touching (the same ring twice when a ring touches
    /// itself): non-adjacent edges that meet, collinear overlaps, and adjacent edges folding back.
    /// Sweep and prune: edges in order of their west end, each compared only with the edges whose
    /// east-west extent still overlaps it, so thousands of points take milliseconds.
    static func firstCrossing(_ rings: [[Point]]) -> (Int, Int)? {
        struct Edge {
            var ring: Int
            var index: Int
            var a: Point
            var b: Point
            var west: Double { min(a.x, b.x) }
            var east: Double { max(a.x, b.x) }
        }
        var edges: [Edge] = []
        for (r, ring) in rings.enumerated() {
            for i in ring.indices { edges.append(Edge(ring: r, index: i, a: ring[i], b: ring[(i + 1) % ring.count])) }
        }
        edges.sort { $0.west < $1.west }
        var active: [Edge] = []
        for edge in edges {
            active.removeAll { $0.east < edge.west }
            for other in active {
                if other.ring == edge.ring {
                    // Adjacent edges share a vertex by construction.
                    let n = rings[edge.ring].count
                    if other.index == (edge.index + 1) % n || edge.index == (other.index + 1) % n { continue }
                }
                if max(edge.a.y, edge.b.y) < min(other.a.y, other.b.y) || max(other.a.y, other.b.y) < min(edge.a.y, edge.b.y) {
                    continue
                }
                if segmentsIntersect(edge.a, edge.b, other.a, other.b) { return (other.ring, edge.ring) }
            }
            active.append(edge)
        }
        for (r, ring) in rings.enumerated() {
            let n = ring.count
            for i in 0..<n {
                let a = ring[(i + n - 1) % n], b = ring[i], c = ring[(i + 1) % n]
                if cross(a, b, c) == 0, dot(a, b, c) > 0 { return (r, r) }
            }
        }
        return nil
    }

    private static func cross(_ o: Point, _ a: Point, _ b: Point) -> Double {
        (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    }

    /// Positive when the turn at `b` goes back toward `a` (a spike).
    private static func dot(_ a: Point, _ b: Point, _ c: Point) -> Double {
        (a.x - b.x) * (c.x - b.x) + (a.y - b.y) * (c.y - b.y)
    }

    private static func onSegment(_ p: Point, _ q: Point, _ r: Point) -> Bool {
        min(p.x, r.x) <= q.x && q.x <= max(p.x, r.x) && min(p.y, r.y) <= q.y && q.y <= max(p.y, r.y)
    }

    private static func segmentsIntersect(_ p1: Point, _ p2: Point, _ p3: Point, _ p4: Point) -> Bool {
        let d1 = cross(p3, p4, p1), d2 = cross(p3, p4, p2)
        let d3 = cross(p1, p2, p3), d4 = cross(p1, p2, p4)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        if d1 == 0 && onSegment(p3, p1, p4) { return true }
        if d2 == 0 && onSegment(p3, p2, p4) { return true }
        if d3 == 0 && onSegment(p1, p3, p2) { return true }
        if d4 == 0 && onSegment(p1, p4, p2) { return true }
        return false
    }
}
