import Foundation
import Testing

@testable import GeofenceEngine
import SeededRandom

/// Distances on the mean sphere, polygon distances, and the places where maps break: poles and
/// the antimeridian.
@Suite("Geometry")
struct GeometryTests {
    // MARK: Earth.distance

    @Test func oneDegreeOfLatitudeIs111_195MetresOnTheMeanSphere() {
        let expected = 6_371_008.8 * .pi / 180  // 111 195.08 m
        #expect(abs(expected - 111_195.08) < 0.01)
        #expect(abs(Earth.distance(Coordinate(lat: 0, lon: 0), Coordinate(lat: 1, lon: 0)) - expected) < 1e-6)
        #expect(abs(Earth.distance(Coordinate(lat: 49, lon: 8), Coordinate(lat: 50, lon: 8)) - expected) < 1e-6)
        #expect(abs(Earth.distance(Coordinate(lat: -1, lon: 0), Coordinate(lat: 0, lon: 0)) - expected) < 1e-6)
        // One degree of longitude on the equator, too.
        #expect(abs(Earth.distance(Coordinate(lat: 0, lon: 8), Coordinate(lat: 0, lon: 9)) - expected) < 1e-6)
    }

    @Test func knownDistances() {
        let a = Coordinate(lat: 10, lon: 20)
        #expect(Earth.distance(a, a) == 0)
        // Antipodes: half the circumference.
        let antipode = Coordinate(lat: -10, lon: -160)
        #expect(abs(Earth.distance(a, antipode) - .pi * Earth.meanRadiusMeters) < 1)
        // Pole to equator: a quarter.
        #expect(abs(Earth.distance(Coordinate(lat: 90, lon: 0), Coordinate(lat: 0, lon: 77)) - .pi / 2 * Earth.meanRadiusMeters) < 1e-3)
        // Across the antimeridian the short way round: 0.002 degrees of longitude at the equator.
        let d = Earth.distance(Coordinate(lat: 0, lon: 179.999), Coordinate(lat: 0, lon: -179.999))
        #expect(abs(d - 0.002 * 111_195.08) < 0.01)
    }

    @Test func distanceAgreesWithTheLawOfCosinesAndWithDestination() {
        var rng = SeededRandom(seed: 2024)
        for _ in 0..<2_000 {
            let a = Coordinate(lat: asin(rng.uniform(-1...1)) * 180 / .pi, lon: rng.uniform(-180...180))
            let meters = rng.logUniform(10...15_000_000)
            let b = destination(a, bearing: rng.uniform(0...360), meters: meters)
            let d = Earth.distance(a, b)
            #expect(abs(d - meters) <= max(1e-6, meters * 1e-9))
            #expect(abs(d - Earth.distance(b, a)) < 1e-6)
            if meters > 1_000 { #expect(abs(d - lawOfCosinesDistance(a, b)) <= meters * 1e-6) }
        }
    }

    // MARK: Polygon signed distance

    @Test func aPointFiftyMetresNorthOfAnEdgeIsFiftyMetresOutside() throws {
        let sq = try makeFence(square("sq", half: 100))
        #expect(abs(sq.signedDistance(to: local(depot, x: 0, y: 150)) + 50) < 0.01)
        #expect(abs(sq.signedDistance(to: destination(local(depot, x: 30, y: 100), bearing: 0, meters: 50)) + 50) < 0.01)
        #expect(abs(sq.signedDistance(to: local(depot, x: 0, y: 50)) - 50) < 0.01)
        #expect(abs(sq.signedDistance(to: depot) - 100) < 0.01)
        #expect(abs(sq.signedDistance(to: local(depot, x: -130, y: 0)) + 30) < 0.01)
        // Beyond a corner the nearest point is the corner.
        #expect(abs(sq.signedDistance(to: local(depot, x: 130, y: 140)) + (30.0 * 30 + 40 * 40).squareRoot()) < 0.01)
    }

    @Test func concaveLShapeDistances() throws {
        let l = try makeFence(polygon("L", lShape))
        #expect(abs(l.signedDistance(to: local(depot, x: 50, y: 50)) + 50) < 0.01)  // in the notch: outside
        #expect(abs(l.signedDistance(to: local(depot, x: -50, y: -50)) - 50) < 0.01)
        #expect(abs(l.signedDistance(to: local(depot, x: 50, y: -50)) - 50) < 0.01)
        #expect(abs(l.signedDistance(to: local(depot, x: 150, y: 50)) + 50 * 2.0.squareRoot()) < 0.01)
        #expect(abs(l.signedDistance(to: local(depot, x: 10, y: 10)) + 10) < 0.01)  // near the reflex corner
    }

    @Test func polygonDistanceMatchesACircleForARegular64Gon() throws {
        let n = 64, r = 500.0
        let ring = (0..<n).map { k -> (Double, Double) in
            let a = 2 * Double.pi * Double(k) / Double(n)
            return (r * cos(a), r * sin(a))
        }
        let poly = try makeFence(polygon("round", ring))
        let disc = try makeFence(circle("round", radius: r))
        let sagitta = r * (1 - cos(.pi / Double(n)))  // 0.6 m: the most a chord strays from the arc
        var rng = SeededRandom(seed: 64)
        for _ in 0..<500 {
            let p = destination(depot, bearing: rng.uniform(0...360), meters: rng.uniform(0...1_000))
            let difference = abs(poly.signedDistance(to: p) - disc.signedDistance(to: p))
            #expect(difference <= sagitta + 0.05)
        }
        // A regular polygon's inscribed circle is its apothem.
        #expect(abs(poly.marginCap - r * cos(.pi / Double(n)) / 2) < 0.01)
    }

    @Test func polygonEnterAndExitOfA200MetreSquare() throws {
        var h = try Harness([square("sq", half: 100)])
        // East at 5 m/s, a sample every 5 s: 120 m west of the centre is 20 m out, 95 m west 5 m in
        // (no evidence), 70 m west 30 m in (t0 = +30).
        h.feed(eastWest(stride(from: -220.0, through: 380, by: 25).map { $0 }))
        #expect(events(h.alerts) == ["enter sq", "exit sq"])
        let enter = h.alerts[0], exit = h.alerts[1]
        #expect(abs(enter.at - (T0 + 24)) < 1e-2)
        #expect(enter.confirmedAt == T0 + 50)
        #expect(enter.radiusMeters == nil)
        #expect(abs(exit.at - (T0 + 64)) < 1e-2)
        #expect(exit.confirmedAt == T0 + 90)
        #expect(abs(try #require(exit.durationSeconds) - 40) < 1e-2)
    }

    @Test func polygonEnterAndExitOfAConcaveLThroughItsNotch() throws {
        var h = try Harness([polygon("L", lShape)])
        // South at 2 m/s along x = 50: through the notch (outside) from y = 165, into the L at y = 0,
        // out of it at y = -100.
        let samples = (0..<40).map { k in sample(local(depot, x: 50, y: 165 - 10 * Double(k)), t: T0 + 5 * Double(k)) }
        h.feed(samples)
        #expect(events(h.alerts) == ["enter L", "exit L"])
        let enter = h.alerts[0], exit = h.alerts[1]
        #expect(abs(enter.at - (T0 + 82.5)) < 1e-2)  // between y = 5 (+80) and y = -5 (+85)
        #expect(enter.confirmedAt == T0 + 110)  // t0 at y = -15 (+90)
        #expect(abs(exit.at - (T0 + 132.5)) < 1e-2)
        #expect(exit.confirmedAt == T0 + 160)
        #expect(abs(try #require(exit.durationSeconds) - 50) < 1e-2)

        // Only through the notch: nothing.
        var n = try Harness([polygon("L", lShape)])
        n.feed((0..<40).map { k in sample(local(depot, x: 10 + 2 * Double(k), y: 160 - 3 * Double(k)), t: T0 + 5 * Double(k)) })
        #expect(n.alerts.isEmpty)
    }

    // MARK: Poles

    @Test func circleNearThePoleHasSaneDistancesAndAlerts() throws {
        let center = Coordinate(lat: 89.999, lon: 0)  // 111 m from the pole
        let fence = try makeFence(circle("polar", at: center, radius: 500))
        #expect(abs(fence.signedDistance(to: Coordinate(lat: 90, lon: 123)) - (500 - 111.195)) < 0.01)
        #expect(abs(fence.signedDistance(to: Coordinate(lat: 89.999, lon: 180)) - (500 - 222.390)) < 0.01)
        #expect(fence.signedDistance(to: Coordinate(lat: 89.99, lon: 90)) < 0)

        var h = try Harness([circle("polar", at: center, radius: 500)])
        // North from 2 km south of the centre, over the pole, 2 km down the other side.
        let path = drive(from: destination(center, bearing: 180, meters: 2_000), bearing: 0, speed: 10, interval: 5, count: 90)
        for s in path {
            #expect(h.engine.fencesNear(lat: s.lat, lon: s.lon) == h.engine.fencesNearByBruteForce(lat: s.lat, lon: s.lon))
        }
        h.feed(path)
        #expect(events(h.alerts) == ["enter polar", "exit polar"])
        #expect(abs(try #require(h.alerts.last?.durationSeconds) - 100) < 0.5)  // 1 000 m at 10 m/s
    }

    @Test func polygonTouching89point9DoesNotCrashAndWorks() throws {
        let ring = [
            Coordinate(lat: 89.8, lon: 0), Coordinate(lat: 89.8, lon: 10), Coordinate(lat: 89.9, lon: 10),
            Coordinate(lat: 89.9, lon: 0),
        ]
        var h = try Harness([FenceDefinition(id: "arctic", shape: .polygon(ring))])
        let fence = try #require(h.engine.fence(id: "arctic"))
        #expect(fence.signedDistance(to: Coordinate(lat: 89.85, lon: 5)) > 0)
        #expect(fence.signedDistance(to: Coordinate(lat: 89.85, lon: 20)) < 0)
        #expect(fence.signedDistance(to: Coordinate(lat: 89.95, lon: 5)) < 0)
        #expect(fence.signedDistance(to: Coordinate(lat: 90, lon: 0)) < 0)
        // A truck circling the pole at 89.85 degrees, through the fence's longitudes and beyond.
        let samples = (0..<200).map { k in
            sample(Coordinate(lat: 89.85, lon: normalizedLongitude(-40 + 0.5 * Double(k))), t: T0 + 5 * Double(k))
        }
        for s in samples {
            #expect(h.engine.fencesNear(lat: s.lat, lon: s.lon) == h.engine.fencesNearByBruteForce(lat: s.lat, lon: s.lon))
        }
        h.feed(samples)
        #expect(events(h.alerts) == ["enter arctic", "exit arctic"])
        // And the poles themselves.
        h.feed([sample(Coordinate(lat: 90, lon: 0), t: T0 + 5_000), sample(Coordinate(lat: -90, lon: 0), t: T0 + 5_005)])
    }

    // MARK: Antimeridian

    @Test func circleAtLongitude179point999ContainsAPointAtMinus179point999() throws {
        let center = Coordinate(lat: 0, lon: 179.999)
        let fence = try makeFence(circle("dateline", at: center, radius: 500))
        #expect(abs(fence.signedDistance(to: Coordinate(lat: 0, lon: -179.999)) - (500 - 222.390)) < 0.01)

        var h = try Harness([circle("dateline", at: center, radius: 500)])
        #expect(h.engine.fencesNear(lat: 0, lon: -179.999) == ["dateline"])
        let path = drive(from: Coordinate(lat: 0, lon: 179.98), bearing: 90, speed: 10, interval: 5, count: 80)
        h.feed(path)
        #expect(events(h.alerts) == ["enter dateline", "exit dateline"])
        #expect(h.alerts[1].lon < 0)  // confirmed on the western hemisphere's side
    }

    @Test func polygonSpanningTheAntimeridian() throws {
        let ring = [
            Coordinate(lat: -0.01, lon: 179.99), Coordinate(lat: -0.01, lon: -179.99),
            Coordinate(lat: 0.01, lon: -179.99), Coordinate(lat: 0.01, lon: 179.99),
        ]
        var h = try Harness([FenceDefinition(id: "pacific", shape: .polygon(ring))])
        let fence = try #require(h.engine.fence(id: "pacific"))
        let quarterWidth = 0.005 * 111_195.08
        #expect(abs(fence.signedDistance(to: Coordinate(lat: 0, lon: 180)) - 2 * quarterWidth) < 1)
        #expect(abs(fence.signedDistance(to: Coordinate(lat: 0, lon: -180)) - 2 * quarterWidth) < 1)
        #expect(abs(fence.signedDistance(to: Coordinate(lat: 0, lon: -179.995)) - quarterWidth) < 1)
        #expect(abs(fence.signedDistance(to: Coordinate(lat: 0, lon: 179.98)) + 2 * quarterWidth) < 1)
        #expect(h.engine.fencesNear(lat: 0, lon: -179.995) == ["pacific"])
        #expect(h.engine.fencesNear(lat: 0, lon: 179.995) == ["pacific"])
        let path = drive(from: Coordinate(lat: 0, lon: 179.97), bearing: 90, speed: 20, interval: 5, count: 80)
        h.feed(path)
        #expect(events(h.alerts) == ["enter pacific", "exit pacific"])
    }

    /// Circles of every size whose reach crosses +-180 by a little or a lot, queried from the far
    /// side: the index must agree with brute force.
    @Test func indexFindsFencesAcrossTheAntimeridianFromTheOtherSide() throws {
        try indexAcrossTheAntimeridian()
    }

    func indexAcrossTheAntimeridian() throws {
        var misses: [String] = []
        for radius in [500.0, 1_000, 2_000, 3_000, 5_000, 8_000, 10_000, 15_000, 20_000, 30_000, 50_000, 100_000] {
            let reach = radius * 1.5 / metersPerDegree
            for overhang in [0.001, 0.01, 0.03, 0.06, 0.1, 0.3, 0.6] where overhang < reach {
                for lat in [0.0, 45, -60] {
                    var engine = GeofenceEngine()
                    let lon = 180 - reach / cos(lat * .pi / 180) + overhang  // the box ends `overhang` past 180
                    guard lon < 180 else { continue }
                    try engine.setFence(circle("c", at: Coordinate(lat: lat, lon: lon), radius: radius))
                    for k in 0..<40 {
                        let q = -180 + overhang * Double(k) / 40
                        let viaIndex = engine.fencesNear(lat: lat, lon: q)
                        let brute = engine.fencesNearByBruteForce(lat: lat, lon: q)
                        if viaIndex != brute {
                            misses.append("r=\(radius) centre=(\(lat), \(lon)) query lon=\(q): index \(viaIndex), brute \(brute)")
                        }
                    }
                }
            }
        }
        let missCount = misses.count
        #expect(missCount == 0, "first misses: \(misses.prefix(3).joined(separator: "; "))")
    }

    @Test func aTruckJustAcrossTheAntimeridianIsSeenInsideATwelveKilometreCircle() throws {
        try truckAcrossTheAntimeridian()
    }

    func truckAcrossTheAntimeridian() throws {
        // Centre at 179.897, 12 km (0.108 degrees): lon -179.998 is 11.68 km from the centre,
        // 325 m inside. The fence's reach (1.5 x radius) ends at 180.059.
        let fence = circle("pacific-12km", at: Coordinate(lat: 0, lon: 179.897), radius: 12_000)
        #expect(abs(try makeFence(fence).signedDistance(to: Coordinate(lat: 0, lon: -179.998)) - 325) < 1)
        var h = try Harness([fence])
        h.feed([sample(Coordinate(lat: 0, lon: -179.998), t: T0)])
        #expect(h.engine.state(of: "truck-7", in: "pacific-12km") == .inside)
    }
}
