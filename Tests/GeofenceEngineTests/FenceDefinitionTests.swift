import Foundation
import Testing

@testable import GeofenceEngine
import SeededRandom

/// docs/topics-and-payloads.md "Fences": radius clamping, rejection of invalid values, polygon rings.
@Suite("Fence definitions")
struct FenceDefinitionTests {
    // MARK: Radius clamping

    @Test func radiusBelowMinimumIsClampedUpTo20() throws {
        let fence = try makeFence(circle("tiny", radius: 5))
        #expect(fence.effectiveRadius == 20)
        #expect(fence.clampedFrom == 5)
        #expect(fence.isClamped)
        #expect(fence.marginCap == 10)
        #expect(abs(fence.signedDistance(to: depot) - 20) < 1e-9)
    }

    @Test func radiusAboveMaximumIsClampedDownTo100km() throws {
        let fence = try makeFence(circle("huge", radius: 200_000))
        #expect(fence.effectiveRadius == 100_000)
        #expect(fence.clampedFrom == 200_000)
        #expect(abs(fence.signedDistance(to: depot) - 100_000) < 1e-6)
        let justInside = destination(depot, bearing: 45, meters: 99_000)
        let justOutside = destination(depot, bearing: 45, meters: 101_000)
        #expect(abs(fence.signedDistance(to: justInside) - 1_000) < 0.01)
        #expect(abs(fence.signedDistance(to: justOutside) + 1_000) < 0.01)
    }

    @Test(arguments: [20.0, 200, 100_000])
    func radiusInsideTheRangeIsNotClamped(radius: Double) throws {
        let fence = try makeFence(circle("ok", radius: radius))
        #expect(fence.effectiveRadius == radius)
        #expect(fence.clampedFrom == nil)
        #expect(!fence.isClamped)
    }

    @Test func clampFollowsTheSettings() throws {
        let settings = GeofenceSettings(minRadiusMeters: 50, maxRadiusMeters: 500)
        #expect(try makeFence(circle("a", radius: 30), settings: settings).effectiveRadius == 50)
        #expect(try makeFence(circle("b", radius: 900), settings: settings).effectiveRadius == 500)
    }

    @Test func alertsShowTheEffectiveRadius() throws {
        var h = try Harness([circle("tiny", radius: 5)])
        #expect(h.engine.fence(id: "tiny")?.effectiveRadius == 20)
        // 0.4 m/s through the centre: |x| <= 10 m (the 10 m cap of a 20 m circle) for 50 s.
        h.feed(eastWest(stride(from: -61.0, through: 61, by: 2).map { $0 }))
        #expect(events(h.alerts) == ["enter tiny", "exit tiny"])
        #expect(h.alerts.map(\.radiusMeters) == [20, 20])
    }

    @Test func polygonAlertsHaveNoRadius() throws {
        var h = try Harness([square("sq", half: 100)])
        h.feed(eastWest(stride(from: -220.0, through: 380, by: 25).map { $0 }))
        #expect(events(h.alerts) == ["enter sq", "exit sq"])
        #expect(h.alerts.allSatisfy { $0.radiusMeters == nil })
    }

    // MARK: Rejection

    @Test(arguments: [Double.nan, .infinity, -.infinity, 0, -0.0, -5, -.greatestFiniteMagnitude])
    func invalidRadiusIsRejectedNotClamped(radius: Double) {
        let error = #expect(throws: FenceError.self) { try makeFence(circle("bad", radius: radius)) }
        guard case .invalidRadius = error else {
            Issue.record("expected invalidRadius, got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: [
        (91.0, 8.0), (-90.000001, 8.0), (49.0, 181.0), (49.0, -180.5), (.nan, 8.0), (49.0, .nan),
        (.infinity, 8.0), (49.0, -.infinity),
    ])
    func invalidCentreIsRejected(lat: Double, lon: Double) {
        let error = #expect(throws: FenceError.self) {
            try makeFence(circle("bad", at: Coordinate(lat: lat, lon: lon), radius: 100))
        }
        guard case .invalidCoordinate = error else {
            Issue.record("expected invalidCoordinate, got \(String(describing: error))")
            return
        }
    }

    @Test(arguments: [(90.0, 0.0), (-90.0, 0.0), (0.0, 180.0), (0.0, -180.0)])
    func centresOnTheEdgeOfTheRangeAreAccepted(lat: Double, lon: Double) throws {
        _ = try makeFence(circle("edge", at: Coordinate(lat: lat, lon: lon), radius: 100))
    }

    @Test func invalidPolygonVertexIsRejected() {
        let ring = [Coordinate(lat: 49, lon: 8), Coordinate(lat: 91, lon: 8), Coordinate(lat: 49, lon: 9)]
        let error = #expect(throws: FenceError.self) {
            try makeFence(FenceDefinition(id: "bad", shape: .polygon(ring)))
        }
        guard case .invalidCoordinate = error else {
            Issue.record("expected invalidCoordinate, got \(String(describing: error))")
            return
        }
        let nanRing = [Coordinate(lat: 49, lon: 8), Coordinate(lat: .nan, lon: 8), Coordinate(lat: 49, lon: 9)]
        #expect(throws: FenceError.self) { try makeFence(FenceDefinition(id: "bad", shape: .polygon(nanRing))) }
    }

    @Test func emptyIDIsRejected() {
        #expect(throws: FenceError.emptyID) { try makeFence(circle("", radius: 100)) }
    }

    @Test func rejectedDefinitionChangesNothingInTheEngine() throws {
        var engine = GeofenceEngine()
        try engine.setFence(circle("f", radius: 200))
        #expect(throws: FenceError.invalidRadius(-1)) { try engine.setFence(circle("f", radius: -1)) }
        #expect(throws: FenceError.self) { try engine.setFence(circle("g", at: Coordinate(lat: 91, lon: 0), radius: 1)) }
        #expect(engine.fenceCount == 1)
        #expect(engine.fence(id: "f")?.effectiveRadius == 200)
        #expect(engine.fence(id: "g") == nil)
    }

    // MARK: Polygons

    @Test func polygonWithFewerThanThreeDistinctPointsIsRejected() {
        let a = local(depot, x: 0, y: 0), b = local(depot, x: 100, y: 0)
        #expect(throws: FenceError.tooFewPoints(distinct: 2)) {
            try makeFence(FenceDefinition(id: "p", shape: .polygon([a, b])))
        }
        #expect(throws: FenceError.tooFewPoints(distinct: 2)) {  // "closed" two-point ring
            try makeFence(FenceDefinition(id: "p", shape: .polygon([a, b, a])))
        }
        #expect(throws: FenceError.tooFewPoints(distinct: 2)) {
            try makeFence(FenceDefinition(id: "p", shape: .polygon([a, b, b, a])))
        }
        #expect(throws: FenceError.tooFewPoints(distinct: 1)) {
            try makeFence(FenceDefinition(id: "p", shape: .polygon([a])))
        }
        #expect(throws: FenceError.self) { try makeFence(FenceDefinition(id: "p", shape: .polygon([]))) }
    }

    @Test func polygonWithMoreThanTheLimitOfPointsIsRejected() throws {
        func ring(_ n: Int) -> [Coordinate] {
            (0..<n).map { k in
                let angle = Double(k) * 2 * .pi / Double(n)
                return local(depot, x: 500 * cos(angle), y: 500 * sin(angle))
            }
        }
        let limit = FenceValidation.maxPolygonPoints
        #expect(throws: FenceError.tooManyPoints(count: limit + 1, limit: limit)) {
            try makeFence(FenceDefinition(id: "p", shape: .polygon(ring(limit + 1))))
        }
        let largest = try makeFence(FenceDefinition(id: "p", shape: .polygon(ring(limit))))
        #expect(largest.signedDistance(to: depot) > 499)
    }

    /// A sliver kilometres long and a millimetre wide is valid; finding its (tiny) inscribed
    /// circle must not start from millions of cells.
    @Test func aSliverPolygonIsHeldWithATinyCap() throws {
        let ring = [Coordinate(lat: 49.29, lon: 8.60), Coordinate(lat: 49.29, lon: 8.65), Coordinate(lat: 49.29000001, lon: 8.625)]
        let start = ContinuousClock.now
        let sliver = try makeFence(FenceDefinition(id: "sliver", shape: .polygon(ring)))
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(sliver.marginCap >= 0 && sliver.marginCap < 0.01)
    }

    /// Found by the fences fuzz target (docs/performance.md "Fuzzing"): a triangle 4,400 km long and metres wide
    /// took 86 s to build in a release build, searching its spine at a decimetre; the search now stops
    /// after `InscribedCircle.maxCells` cells with the best found, which never exceeds the true radius.
    @Test func aSliverThousandsOfKilometresLongIsBuiltQuickly() throws {
        let ring = [Coordinate(lat: 49, lon: 8), Coordinate(lat: 49, lon: 8.0000001), Coordinate(lat: 9.0000001, lon: 8.000041)]
        let start = ContinuousClock.now
        let sliver = try makeFence(FenceDefinition(id: "tiny", shape: .polygon(ring)))
        #expect(ContinuousClock.now - start < .seconds(5))
        // Its base is under a centimetre wide (in the fence's own projection, 9.7 mm): the cap, half the
        // radius of a circle that fits, is at most 2.5 mm, and the search found more than nothing.
        #expect(sliver.marginCap > 0 && sliver.marginCap <= 0.0025, "\(sliver.marginCap)")
    }

    /// The sweep must find exactly what comparing every pair of edges finds.
    @Test func selfIntersectionSweepAgreesWithEveryPairOnRandomRings() {
        typealias P = (x: Double, y: Double)
        func crosses(_ a: P, _ b: P, _ c: P, _ d: P) -> Bool {
            func side(_ o: P, _ p: P, _ q: P) -> Double { (p.x - o.x) * (q.y - o.y) - (p.y - o.y) * (q.x - o.x) }
            return side(c, d, a) * side(c, d, b) < 0 && side(a, b, c) * side(a, b, d) < 0
        }
        var rng = SeededRandom(seed: 7)
        var simple = 0
        for _ in 0..<2_000 {
            let n = Int(rng.uniform(4...9))
            let ring = (0..<n).map { _ in local(depot, x: rng.uniform(-100...100), y: rng.uniform(-100...100)) }
            let points = ring.map { (x: $0.lon, y: $0.lat) }
            var expected = false
            for i in 0..<n {
                for j in (i + 1)..<n where j != i + 1 && !(i == 0 && j == n - 1) {
                    if crosses(points[i], points[(i + 1) % n], points[j], points[(j + 1) % n]) { expected = true }
                }
            }
            // Random points in general position: no touching or collinear edges to tell apart.
            #expect(FenceValidation.isSelfIntersecting(ring) == expected, "\(ring)")
            if !expected { simple += 1 }
        }
        #expect(simple > 100)
    }

    @Test func selfIntersectingBowTieIsRejected() {
        #expect(throws: FenceError.selfIntersecting) {
            try makeFence(polygon("bowtie", [(-100, -100), (100, 100), (100, -100), (-100, 100)]))
        }
        #expect(throws: FenceError.selfIntersecting) {
            try makeFence(polygon("bowtie", [(-100, -100), (100, 100), (100, -100), (-100, 100)], closed: true))
        }
    }

    @Test func degenerateCollinearRingIsRejected() {
        #expect(throws: FenceError.self) { try makeFence(polygon("line", [(0, 0), (100, 0), (200, 0)])) }
    }

    @Test func closedAndUnclosedRingsAreBothAcceptedAndTheSame() throws {
        let open = try makeFence(polygon("sq", lShape))
        let closed = try makeFence(polygon("sq", lShape, closed: true))
        #expect(abs(open.marginCap - closed.marginCap) < 1e-9)
        var rng = SeededRandom(seed: 7)
        for _ in 0..<200 {
            let p = local(depot, x: rng.uniform(-150...150), y: rng.uniform(-150...150))
            #expect(open.signedDistance(to: p) == closed.signedDistance(to: p))
        }
    }

    @Test func clockwiseAndCounterClockwiseRingsAreTheSame() throws {
        let ccw = try makeFence(polygon("sq", lShape))
        let cw = try makeFence(polygon("sq", lShape.reversed()))
        for (x, y) in [(-50.0, -50.0), (50, 50), (50, -50), (150, 0), (0, 0.5)] {
            let p = local(depot, x: x, y: y)
            #expect(abs(ccw.signedDistance(to: p) - cw.signedDistance(to: p)) < 1e-9)
        }
    }

    @Test func notifyDefaultsToEnterAndExit() throws {
        #expect(try makeFence(circle("f", radius: 100)).notify == [.enter, .exit])
        #expect(try makeFence(circle("f", radius: 100, dwell: 60)).notify == [.enter, .exit, .dwell])
        #expect(try makeFence(circle("f", radius: 100, notify: [.exit])).notify == [.exit])
    }
}
