import Foundation
import Testing

@testable import GeofenceEngine
import SeededRandom

/// docs/topics-and-payloads.md "Fences": polygons with holes, MultiPolygons and corridors, measured; and the evidence
/// margin's cap of each (docs/rules.md "The rules").
@Suite("Shapes: holes, MultiPolygons, corridors")
struct ShapeGeometryTests {
    // MARK: Holes

    @Test func insideAHoleIsOutsideAndTheNearestRingDecides() throws {
        let fence = try makeFence(squareWithHole("ring"))
        #expect(abs(fence.signedDistance(to: depot) + 50) < 0.01, "the hole's centre is 50 m outside")
        #expect(abs(fence.signedDistance(to: local(depot, x: 70, y: 0)) - 20) < 0.01, "20 m from the hole")
        #expect(abs(fence.signedDistance(to: local(depot, x: 0, y: -30)) + 20) < 0.01, "20 m into the hole")
        #expect(abs(fence.signedDistance(to: local(depot, x: 170, y: 0)) - 30) < 0.01, "30 m from the outer ring")
        #expect(abs(fence.signedDistance(to: local(depot, x: 0, y: 240)) + 40) < 0.01, "40 m beyond it")
        // Between the hole and the outer ring, halfway: 75 m from both.
        #expect(abs(fence.signedDistance(to: local(depot, x: 125, y: 0)) - 75) < 0.01)
    }

    /// The deepest point of a square ring lies on its diagonal, where the outer ring and the
    /// hole's corner are equally far: 200 - t = sqrt(2) (t - 50), t = 112.13, radius 87.87 m.
    @Test func theInscribedCircleAvoidsTheHole() throws {
        let withHole = try makeFence(squareWithHole("ring"))
        let expected = (200 + 50 * 2.0.squareRoot()) / (1 + 2.0.squareRoot())
        let radius = 200 - expected
        #expect(withHole.marginCap <= radius / 2 + 1e-6, "never more than the true half radius")
        #expect(withHole.marginCap > radius / 2 - 0.1)
        #expect(try makeFence(square("plain", half: 200)).marginCap > 99.9)
    }

    // MARK: MultiPolygons

    @Test func aMultiPolygonIsItsMembersTogether() throws {
        let big = PolygonRings(outer: squareRing(half: 200))
        let small = PolygonRings(outer: squareRing(half: 20, x: 1_000))
        let fence = try makeFence(FenceDefinition(id: "m", shape: .multiPolygon([big, small])))
        #expect(abs(fence.signedDistance(to: depot) - 200) < 0.01)
        #expect(abs(fence.signedDistance(to: local(depot, x: 1_000, y: 0)) - 20) < 0.01)
        // Between them: minus the distance to the nearer.
        #expect(abs(fence.signedDistance(to: local(depot, x: 500, y: 0)) + 300) < 0.01)
        #expect(abs(fence.signedDistance(to: local(depot, x: 900, y: 0)) + 80) < 0.01)
        // Each member caps the margin near it; the fence's cap is the largest.
        #expect(abs(fence.marginCap(near: local(depot, x: 150, y: 0)) - 100) < 0.1)
        #expect(abs(fence.marginCap(near: local(depot, x: 1_010, y: 0)) - 10) < 0.1)
        #expect(abs(fence.marginCap(near: local(depot, x: 900, y: 0)) - 10) < 0.1, "outside: the nearest member's")
        #expect(abs(fence.marginCap - 100) < 0.1)
        // The reach covers both members and their bands.
        let reach = fence.reach
        for x in [-299.0, 1_029] { #expect(reach.contains(lat: depot.lat, lon: local(depot, x: x, y: 0).lon)) }
    }

    @Test func aMemberInsideAnotherMembersHoleIsAnIsland() throws {
        let lake = PolygonRings(outer: squareRing(half: 200), holes: [squareRing(half: 100)])
        let island = PolygonRings(outer: squareRing(half: 30))
        let fence = try makeFence(FenceDefinition(id: "m", shape: .multiPolygon([lake, island])))
        #expect(abs(fence.signedDistance(to: depot) - 30) < 0.01, "on the island")
        #expect(abs(fence.signedDistance(to: local(depot, x: 60, y: 0)) + 30) < 0.01, "in the water")
        #expect(abs(fence.signedDistance(to: local(depot, x: 150, y: 0)) - 50) < 0.01, "on the shore")
    }

    // MARK: Corridors

    @Test func aCorridorIsEveryPointWithinItsBufferOfTheLine() throws {
        let road = try makeFence(corridor("road"))
        #expect(road.effectiveBuffer == 50 && road.effectiveRadius == nil && road.marginCap == 25)
        #expect(abs(road.signedDistance(to: local(depot, x: 300, y: 30)) - 20) < 0.01)
        #expect(abs(road.signedDistance(to: local(depot, x: -300, y: -80)) + 30) < 0.01)
        // Round caps at the ends.
        #expect(abs(road.signedDistance(to: local(depot, x: 1_030, y: 0)) - 20) < 0.01)
        #expect(abs(road.signedDistance(to: local(depot, x: 1_030, y: 40))) < 0.01)
        #expect(abs(road.signedDistance(to: local(depot, x: -1_060, y: 80)) + 50) < 0.01)
    }

    @Test func aCorridorBufferIsClampedLikeARadius() throws {
        let narrow = try makeFence(corridor("narrow", buffer: 5))
        #expect(narrow.effectiveBuffer == 20 && narrow.clampedFrom == 5 && narrow.isClamped && narrow.marginCap == 10)
        let wide = try makeFence(corridor("wide", buffer: 250_000))
        #expect(wide.effectiveBuffer == 100_000 && wide.clampedFrom == 250_000)
        #expect(try makeFence(corridor("ok", buffer: 20)).clampedFrom == nil)
    }

    @Test func aCorridorAcrossTheAntimeridianIsContiguous() throws {
        let line = [Coordinate(lat: 10, lon: 179.99), Coordinate(lat: 10, lon: -179.99)]
        let fence = try makeFence(FenceDefinition(id: "dateline", shape: .corridor(line: line, bufferMeters: 50)))
        let onTheLine = Coordinate(lat: 10, lon: 180)
        #expect(abs(fence.signedDistance(to: onTheLine) - 50) < 0.01)
        #expect(abs(fence.signedDistance(to: destination(onTheLine, bearing: 0, meters: 30)) - 20) < 0.05)
        #expect(fence.reach.contains(lat: 10, lon: -179.995) && fence.reach.contains(lat: 10, lon: 179.995))
    }

    /// The plane centred on each sample keeps a corridor 400 km long exact to centimetres near
    /// it, at both ends.
    @Test func aLongCorridorIsExactNearEverySample() throws {
        let line = (0...400).map { k in Coordinate(lat: 45 + Double(k) * 0.009, lon: 7 + Double(k) * 0.001) }
        let fence = try makeFence(FenceDefinition(id: "long", shape: .corridor(line: line, bufferMeters: 100)))
        for k in [0, 100, 399] {
            let a = line[k], b = line[k + 1]
            let middle = Coordinate(lat: (a.lat + b.lat) / 2, lon: (a.lon + b.lon) / 2)
            let across = initialBearing(from: a, to: b) + 90
            let point = destination(middle, bearing: across, meters: 60)
            #expect(abs(fence.signedDistance(to: point) - 40) < 0.05, "segment \(k)")
        }
    }

    // MARK: Reach

    /// No sample has a margin over `max(hysteresis_m, max_accuracy_m)`: beyond that outside a large
    /// fence every sample is outside evidence, and the index need not offer the fence there.
    @Test func theReachIsGrownByTheLargestMarginASampleCanHave() throws {
        let large = try makeFence(circle("large", radius: 2_000))
        #expect(large.marginCap == 1_000 && large.reachMargin == 100)
        let reachMeters = (large.reach.maxLat - depot.lat) * metersPerDegree
        #expect(abs(reachMeters - 2_100) < 0.01)
        #expect(try makeFence(circle("small", radius: 60)).reachMargin == 30)
        let lenient = GeofenceSettings(maxAccuracyMeters: 500)
        #expect(try makeFence(circle("large", radius: 2_000), settings: lenient).reachMargin == 500)
        // A fence built under other settings is built again by the engine that holds it.
        var engine = GeofenceEngine(settings: lenient)
        try engine.setFence(large)
        #expect(engine.fence(id: "large")?.reachMargin == 500)
        // And a device 150 m outside with the largest accuracy allowed is outside evidence: known
        // outside, not unknown, though the index did not offer the fence.
        var h = Harness(engine: GeofenceEngine())
        try h.engine.setFence(circle("large", radius: 2_000))
        h.feed([sample(atBoundary(radius: 2_000, d: -150), t: T0, acc: 100)])
        #expect(h.engine.state(of: "truck-7", in: "large") == .outside)
    }

    // MARK: The skipping of far edges changes nothing

    /// Rings of hundreds of points (many runs of edges, most skipped for a given point) against
    /// the plain loop over every edge.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func skippingFarEdgesGivesTheDistanceEveryEdgeGives(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        func star(_ n: Int, radius: Double, x: Double, y: Double) -> [(x: Double, y: Double)] {
            (0..<n).map { k in
                let angle = Double(k) / Double(n) * 2 * .pi
                let r = radius * rng.uniform(0.7...1)
                return (x + r * cos(angle), y + r * sin(angle))
            }
        }
        let rings = [star(400, radius: 1_000, x: 0, y: 0), star(150, radius: 200, x: 300, y: 0), star(60, radius: 100, x: -400, y: 200)]
        let planar = PlanarRings(rings)
        for _ in 0..<3_000 {
            let px = rng.uniform(-1_500...1_500), py = rng.uniform(-1_500...1_500)
            var inside = false
            var best = Double.infinity
            for ring in rings {
                for i in ring.indices {
                    let a = ring[i], b = ring[(i + 1) % ring.count]
                    if (a.y > py) != (b.y > py), px < a.x + (py - a.y) / (b.y - a.y) * (b.x - a.x) { inside.toggle() }
                    let ex = b.x - a.x, ey = b.y - a.y
                    let t = min(1, max(0, ((px - a.x) * ex + (py - a.y) * ey) / (ex * ex + ey * ey)))
                    best = min(best, hypot(a.x + t * ex - px, a.y + t * ey - py))
                }
            }
            let expected = inside ? best : -best
            #expect(abs(planar.signedDistance(px, py) - expected) < 1e-9)
        }
    }

    @Test(arguments: [4, 5] as [UInt64])
    func aCorridorSkipsOnlySegmentsThatCannotBeNearest(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var point = depot
        var line: [Coordinate] = []
        for _ in 0..<500 {
            line.append(point)
            point = destination(point, bearing: rng.uniform(0...360), meters: rng.uniform(20...300))
        }
        let geometry = CorridorGeometry(line: line, buffer: 40)
        for _ in 0..<2_000 {
            let probe = destination(line.randomElement(using: &rng)!, bearing: rng.uniform(0...360), meters: rng.uniform(0...2_000))
            let cosLat = cos(probe.lat * .pi / 180)
            let kx = metersPerDegree * cosLat
            var best = Double.infinity
            for i in 0..<(line.count - 1) {
                let ax = (line[i].lon - probe.lon) * kx, ay = (line[i].lat - probe.lat) * metersPerDegree
                let bx = (line[i + 1].lon - probe.lon) * kx, by = (line[i + 1].lat - probe.lat) * metersPerDegree
                let ex = bx - ax, ey = by - ay
                let t = min(1, max(0, -(ax * ex + ay * ey) / (ex * ex + ey * ey)))
                best = min(best, hypot(ax + t * ex, ay + t * ey))
            }
            #expect(abs(geometry.distanceToLine(lat: probe.lat, lon: probe.lon, cosLat: cosLat) - best) < 1e-6)
        }
    }
}
