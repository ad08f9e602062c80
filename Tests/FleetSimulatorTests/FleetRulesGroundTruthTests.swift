import FleetFenceCodecs
import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

/// Ground truth for the fleet rules' shapes and targeting (docs/topics-and-payloads.md "Fences", docs/rules.md "The rules") on
/// hand-built paths at their boundaries, with noise.
@Suite("Ground truth of holes, MultiPolygons, corridors, targeting and expiry")
struct FleetRulesGroundTruthTests {
    let rules = GroundTruthRules()

    /// A timed route through (east, north, seconds) corners, metres from WDF01's centre.
    func route(_ corners: [(east: Double, north: Double, t: Double)]) -> GPXRoute {
        GPXRoute(name: "path", points: corners.map {
            let c = Fixtures.point(north: $0.north, east: $0.east)
            return RoutePoint(lat: c.lat, lon: c.lon, time: 1_795_600_000 + $0.t)
        }, kind: .track)
    }

    func expected(
        _ route: GPXRoute, _ fences: [JudgeFence], noise: Double, trucks: Int = 1, tours: [TourDefinition] = []
    ) -> [ExpectedAlert] {
        var options = FleetOptions()
        options.trucks = trucks
        options.stagger = 0
        options.noise = noise
        options.startTime = 1_795_600_000
        return GroundTruth.expectedAlerts(plan: FleetPlan(routes: [route], options: options), fences: fences, tours: tours, rules: rules)
    }

    func summary(_ alerts: [ExpectedAlert]) -> [String] {
        alerts.map { "\($0.device) \($0.event.rawValue) \($0.certainty.rawValue)" }
    }

    func fence(_ shape: FenceShape, devices: [String] = FenceDefinition.everyDevice, expiresAt: Double? = nil) throws -> JudgeFence {
        try JudgeFence(definition: FenceDefinition(id: "f", shape: shape, devices: devices, expiresAt: expiresAt), settings: GeofenceSettings())
    }

    func rect(_ west: Double, _ south: Double, _ east: Double, _ north: Double) -> [Coordinate] {
        [(west, south), (east, south), (east, north), (west, north)].map { Fixtures.point(north: $0.1, east: $0.0) }
    }

    // MARK: Holes

    /// A campus 600 m by 400 m with a lot of 200 m by 120 m cut out of its middle.
    var campus: FenceShape { .polygon(rect(-300, -200, 300, 200), holes: [rect(-100, -60, 100, 60)]) }

    @Test func drivingThroughTheLotExitsAndReentersTheCampus() throws {
        // West to east along the middle at 20 km/h, under 10 m of noise.
        let path = route([(-700, 0, 0), (700, 0, 1400 / (20 / 3.6))])
        let alerts = expected(path, [try fence(campus)], noise: 10)
        #expect(summary(alerts) == ["truck-1 enter expected", "truck-1 exit expected", "truck-1 enter expected", "truck-1 exit expected"])
        // The crossings: the outer ring at -300 and 300, the hole's edge at -100 and 100.
        let speed = 20 / 3.6
        for (alert, east) in zip(alerts, [-300.0, -100, 100, 300]) {
            #expect(abs(alert.at - (1_795_600_000 + (east + 700) / speed)) < 0.5, "\(alert)")
        }
    }

    @Test func parkingAtTheLotsGateIsAmbiguousNeverExpected() throws {
        // Into the campus from the west, then 90 s standing 3 m inside the lot's west edge.
        let path = route([(-700, 0, 0), (-103, 0, 150), (-97, 0, 152), (-97, 0, 242), (-700, 0, 400)])
        let alerts = expected(path, [try fence(campus)], noise: 10)
        // Into the lot or not, the noise decides; out of the campus again on the way back, surely.
        #expect(summary(alerts) == ["truck-1 enter expected", "truck-1 exit ambiguous", "truck-1 enter ambiguous", "truck-1 exit expected"])
        #expect(abs(alerts[1].at - (1_795_600_000 + 151)) < 1)
    }

    // MARK: MultiPolygons

    @Test func aSmallMemberCapsItsOwnMarginOnly() throws {
        // A 2 km square (cap 500 m) and an island 40 m across (cap 10 m), 1 km apart.
        let multi = try fence(.multiPolygon([
            PolygonRings(outer: rect(-3000, -1000, -1000, 1000)), PolygonRings(outer: rect(-20, -20, 20, 20)),
        ]))
        #expect(abs(multi.marginCap - 500) < 1)
        let island = multi.measure(Fixtures.point(north: 0, east: 0))
        #expect(abs(island.distance - 20) < 0.01 && abs(island.cap - 10) < 0.05)
        // 20 m deep at the island's centre for a minute, samples 25 m accurate: evidence needs
        // min(25, 10) there; with the large member's cap it would need 25 and never come.
        let corners: [(t: Double, d: Double)] = [(0, -100), (10, 20), (70, 20), (80, -100), (180, -100)]
        var track = Fixtures.track(corners, accuracy: 25)
        track.caps = track.distances.map { _ in island.cap }
        #expect(summary(track.alerts(at: multi, rules: rules)) == ["t enter expected", "t exit expected"])
        track.caps = nil
        #expect(!track.alerts(at: multi, rules: rules).contains { $0.certainty == .expected })
    }

    // MARK: Corridors

    /// A road 1 km long west to east through the centre, asked 5 m wide: clamped to 20.
    var road: FenceShape { .corridor(line: [Fixtures.point(north: 0, east: -500), Fixtures.point(north: 0, east: 500)], bufferMeters: 5) }

    @Test func aCorridorsBufferIsClampedAndCapsTheMargin() throws {
        let corridor = try fence(road)
        #expect(corridor.buffer == 20 && corridor.isClamped && corridor.marginCap == 10)
        // Across the road at 0.5 m/s: 80 s inside, 20 m deep at the line, 40 s of evidence.
        let across = route([(0, -200, 0), (0, 200, 800)])
        #expect(summary(expected(across, [corridor], noise: 0)) == ["truck-1 enter expected", "truck-1 exit expected"])
    }

    @Test func roundCapsAtTheEndsAndStayingOnItEnterOnly() throws {
        let corridor = try fence(.corridor(
            line: [Fixtures.point(north: 0, east: -500), Fixtures.point(north: 0, east: 500)], bufferMeters: 50))
        #expect(abs(corridor.signedDistance(to: Fixtures.point(north: 30, east: 530)) - (50 - 30 * 2.0.squareRoot())) < 0.01)
        #expect(corridor.signedDistance(to: Fixtures.point(north: 0, east: 560)) < 0)
        // On from the west end's cap, along the line to the end of the route, under 10 m of noise.
        let along = route([(-800, 0, 0), (300, 0, 1100 / (40 / 3.6))])
        #expect(summary(expected(along, [corridor], noise: 10)) == ["truck-1 enter expected"])
        // Off square to the line halfway: an exit.
        let off = route([(-800, 0, 0), (0, 0, 800 / (40 / 3.6)), (0, 600, 1400 / (40 / 3.6))])
        #expect(summary(expected(off, [corridor], noise: 10)) == ["truck-1 enter expected", "truck-1 exit expected"])
    }

    // MARK: Targeting and expiry

    @Test func aDeviceTheFenceDoesNotApplyToExpectsNothingFromIt() throws {
        let path = route([(-700, 0, 0), (700, 0, 100)])
        let yard = try fence(.circle(center: Fixtures.point(north: 0, east: 0), radius: 300), devices: ["truck-?2", "truck-1"])
        let alerts = expected(path, [yard], noise: 5, trucks: 13)
        #expect(Set(alerts.map(\.device)) == ["truck-1", "truck-12"])
        #expect(alerts.count == 4 && alerts.allSatisfy { $0.certainty == .expected })
    }

    @Test func aFenceWithAnExpiryIsJudgedAndItsLateAlertsMayNotCome() throws {
        let path = route([(-700, 0, 0), (700, 0, 100)])
        let wdf = try fence(.circle(center: Fixtures.point(north: 0, east: 0), radius: 300), expiresAt: 1_795_600_100)
        let alerts = expected(path, [wdf], noise: 5)
        #expect(summary(alerts) == ["truck-1 enter expected", "truck-1 exit expected"])
        // With the wall clock on simulated time, the enter (29 s) comes more than a minute before
        // the expiry (100 s), the exit (71 s) less: it may not come.
        let allowed = GroundTruth.allowingForExpiry(alerts, fences: [wdf]) { $0 }
        #expect(allowed.map(\.certainty) == [.expected, .ambiguous])
        #expect(allowed[1].note?.contains("expires") == true)
    }
}
