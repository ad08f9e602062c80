import Foundation
import Testing

@testable import GeofenceEngine
import SeededRandom

/// docs/rules.md "The rules" at the boundaries of the new shapes: a hole's edge and a corridor's edge
/// are boundaries like any other, jitter within the band never alerts, and a MultiPolygon's
/// margin is capped by the member that decides.
@Suite("Rules at holes, corridors and MultiPolygons")
struct ShapeRulesTests {
    /// One sample every 5 s along local (x, y) points.
    private func path(_ points: [(Double, Double)], from t: Double = T0) -> [PositionSample] {
        points.enumerated().map { k, p in sample(local(depot, x: p.0, y: p.1), t: t + 5 * Double(k)) }
    }

    @Test(arguments: [RegionState.inside, .outside])
    func jitterAtAHolesEdgeNeverAlerts(known: RegionState) throws {
        var h = try Harness([squareWithHole("ring")])
        var rng = SeededRandom(seed: 9)
        // The hole's east edge is at x = 50: inside the fence east of it, outside in the hole.
        h.feed([sample(local(depot, x: known == .inside ? 100 : 0, y: 0), t: T0)])
        #expect(h.engine.state(of: "truck-7", in: "ring") == known)
        for k in 1...1_800 {
            let t = T0 + Double(k)
            h.feed([sample(local(depot, x: 50 + rng.uniform(-9...9), y: rng.uniform(-40...40)), t: t)])
            if k % 60 == 0 { h.tick(t + 1_000) }
        }
        #expect(h.alerts.isEmpty)
        #expect(h.engine.state(of: "truck-7", in: "ring") == known)
    }

    @Test func drivingIntoTheHoleExitsAndOutAgainEnters() throws {
        var h = try Harness([squareWithHole("ring")])
        // From the band between the rings west into the hole, then on out of the hole.
        let xs = [150.0, 130, 110, 90, 70, 55, 40, 25, 10, 0, -5, -10, -15, -20, -25, -30, -45, -60, -80, -100, -120, -140, -160, -170]
        h.feed(path(xs.map { ($0, 0) }))
        #expect(events(h.alerts) == ["exit ring", "enter ring"])
        let exit = h.alerts[0], enter = h.alerts[1]
        // The hole's edge at x = 50 lies between the samples at 55 (+25 s) and 40 (+30 s).
        #expect(abs(exit.at - (T0 + 25 + 5 * 5.0 / 15)) < 0.01)
        #expect(exit.confirmedAt >= exit.at + 20)
        #expect(abs(enter.at - (T0 + 80 + 5 * 5.0 / 15)) < 0.01, "the west edge at -50 between -45 and -60")
    }

    @Test(arguments: [RegionState.inside, .outside])
    func jitterAtACorridorsEdgeNeverAlerts(known: RegionState) throws {
        var h = try Harness([corridor("road", buffer: 50)])
        var rng = SeededRandom(seed: 10)
        h.feed([sample(local(depot, x: 0, y: known == .inside ? 0 : 200), t: T0)])
        #expect(h.engine.state(of: "truck-7", in: "road") == known)
        // Along the road at its north edge (y = 50), within 9 m either side.
        for k in 1...1_800 {
            let t = T0 + Double(k)
            h.feed([sample(local(depot, x: -900 + Double(k), y: 50 + rng.uniform(-9...9)), t: t)])
            if k % 60 == 0 { h.tick(t + 1_000) }
        }
        #expect(h.alerts.isEmpty)
        #expect(h.engine.state(of: "truck-7", in: "road") == known)
    }

    @Test func leavingACorridorSidewaysAndPastItsEndAreExits() throws {
        var h = try Harness([corridor("road", west: -1_000, east: 1_000, buffer: 50)])
        // Along the road, then off to the north.
        h.feed(path((0..<8).map { (Double($0) * 50, 0) } + (1...10).map { (400, Double($0) * 20) }))
        #expect(events(h.alerts) == ["exit road"])
        // Along the road again, then on past its east end (the cap reaches x = 1,050).
        h.alerts = []
        h.feed(path((0..<30).map { (700 + Double($0) * 20, 0) }, from: T0 + 1_000))
        #expect(events(h.alerts) == ["enter road", "exit road"])
        let exit = try #require(h.alerts.last)
        #expect(abs(exit.at - (T0 + 1_000 + 5 * 17.5)) < 0.01, "between x = 1,040 and 1,060")
    }

    /// With `acc` 30 m a sample 15 m inside the small member is evidence there (its cap is 10 m),
    /// though the large member's cap (100 m) would ask for 30 m.
    @Test func aMultiPolygonsMarginIsCappedByTheMemberThatDecides() throws {
        let big = PolygonRings(outer: squareRing(half: 200))
        let small = PolygonRings(outer: squareRing(half: 20, x: 1_000))
        var h = try Harness([FenceDefinition(id: "m", shape: .multiPolygon([big, small]))])
        h.feed([sample(local(depot, x: 600, y: 0), t: T0)])
        let inSmall = (0..<6).map { k in sample(local(depot, x: 1_000, y: 5), t: T0 + 5 + 5 * Double(k), acc: 30) }
        h.feed(inSmall)
        #expect(events(h.alerts) == ["enter m"])
        // Near the large member's edge the same accuracy needs 30 m: 15 m inside says nothing.
        var g = try Harness([FenceDefinition(id: "m", shape: .multiPolygon([big, small]))])
        g.feed([sample(local(depot, x: 600, y: 0), t: T0)])
        g.feed((0..<6).map { k in sample(local(depot, x: 185, y: 0), t: T0 + 5 + 5 * Double(k), acc: 30) })
        #expect(g.alerts.isEmpty)
        #expect(g.engine.pendingChange(of: "truck-7", in: "m")?.evidenceSince == nil)
    }
}
