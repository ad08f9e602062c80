/// The checks a definition must pass before it becomes a fence. Invalid values are rejected,
/// never repaired: a clamp is only for finite, positive radii.
public enum FenceValidation {
    /// The self-intersection check compares every pair of edges, and every sample near a polygon
    /// measures every edge: beyond this a single fence could stall the service for seconds.
    public static let maxPolygonPoints = 10_000

    public static func validate(_ definition: FenceDefinition) throws(FenceError) {
        if definition.id.isEmpty { throw .emptyID }
        if let dwell = definition.dwellSeconds, !(dwell.isFinite && dwell > 0) { throw .invalidDwell(dwell) }
        if definition.effectiveNotify.contains(.dwell), definition.dwellSeconds == nil { throw .dwellWithoutDuration }
        if let event = definition.effectiveNotify.subtracting(AlertEvent.notifiable).min() { throw .notNotifiable(event) }
        switch definition.shape {
        case let .circle(center, radius):
            guard center.isValid else { throw .invalidCoordinate(lat: center.lat, lon: center.lon) }
            guard radius.isFinite, radius > 0 else { throw .invalidRadius(radius) }
        case let .polygon(points, holes):
            precondition(holes.isEmpty, "holes are measured from the next commit on")
            for point in points where !point.isValid {
                throw .invalidCoordinate(lat: point.lat, lon: point.lon)
            }
            let ring = openRing(points)
            if ring.count > maxPolygonPoints { throw .tooManyPoints(count: ring.count, limit: maxPolygonPoints) }
            let distinct = Set(ring).count
            if distinct < 3 { throw .tooFewPoints(distinct: distinct) }
            if ring.count != distinct || isSelfIntersecting(ring) { throw .selfIntersecting }
        case .multiPolygon, .corridor:
            preconditionFailure("MultiPolygons and corridors are measured from the next commit on")
        }
    }

    /// The ring without its closing point and without repeated consecutive points (which GPS
    /// tools produce and which carry no shape).
    static func openRing(_ points: [Coordinate]) -> [Coordinate] {
        var ring: [Coordinate] = []
        for point in points where ring.last != point { ring.append(point) }
        while ring.count > 1, ring.first == ring.last { ring.removeLast() }
        return ring
    }

    /// Any two non-adjacent edges touching, or collinear overlap, makes the ring invalid.
    /// Sweep and prune: edges in order of their west end, each compared only with the edges whose
    /// east-west extent still overlaps it, so a ring of thousands of points takes milliseconds.
    static func isSelfIntersecting(_ ring: [Coordinate]) -> Bool {
        let origin = ring[0]
        let points = ring.map { (x: Earth.wrappedLongitudeDelta($0.lon, from: origin.lon), y: $0.lat) }
        let n = points.count
        func edge(_ i: Int) -> (Point, Point) { (points[i], points[(i + 1) % n]) }
        let west = (0..<n).map { i in min(points[i].x, points[(i + 1) % n].x) }
        let east = (0..<n).map { i in max(points[i].x, points[(i + 1) % n].x) }
        var active: [Int] = []
        for i in (0..<n).sorted(by: { west[$0] < west[$1] }) {
            active.removeAll { east[$0] < west[i] }
            let (a, b) = edge(i)
            for j in active {
                // Adjacent edges share a vertex by construction.
                if j == (i + 1) % n || i == (j + 1) % n { continue }
                let (c, d) = edge(j)
                if max(a.y, b.y) < min(c.y, d.y) || max(c.y, d.y) < min(a.y, b.y) { continue }
                if segmentsIntersect(a, b, c, d) { return true }
            }
            active.append(i)
        }
        // Adjacent edges folding back onto each other.
        for i in 0..<n {
            let a = points[(i + n - 1) % n], b = points[i], c = points[(i + 1) % n]
            if cross(a, b, c) == 0, dot(a, b, c) > 0 { return true }
        }
        return false
    }

    private typealias Point = (x: Double, y: Double)

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
