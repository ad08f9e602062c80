import Foundation
import Testing

@testable import GeofenceEngine

/// docs/topics-and-payloads.md "Fences": every kind of bad definition is rejected with its reason, and the engine
/// holds what it held before.
@Suite("Fence definitions: bad input of the new keys")
struct ShapeValidationTests {
    private func rejection(_ shape: FenceShape) -> FenceError? {
        rejection(FenceDefinition(id: "bad", shape: shape))
    }

    private func rejection(_ definition: FenceDefinition) -> FenceError? {
        do {
            _ = try makeFence(definition)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Holes

    @Test func aHoleOutsideItsOuterRingIsRejected() {
        #expect(rejection(.polygon(squareRing(half: 100), holes: [squareRing(half: 20, x: 500)])) == .holeOutsideOuterRing(hole: "hole 1"))
    }

    @Test func aHoleCrossingOrTouchingTheOuterRingIsRejected() {
        #expect(rejection(.polygon(squareRing(half: 100), holes: [squareRing(half: 50, x: 80)])) == .ringsCross("the outer ring", "hole 1"))
        // Sharing one vertex with the outer ring.
        let touching = ring([(100, 100), (0, 50), (50, 0)])
        #expect(rejection(.polygon(squareRing(half: 100), holes: [touching])) == .ringsCross("the outer ring", "hole 1"))
    }

    @Test func holesCrossingEachOtherAreRejected() {
        let holes = [squareRing(half: 30, x: -10), squareRing(half: 30, x: 10, y: 10)]
        #expect(rejection(.polygon(squareRing(half: 100), holes: holes)) == .ringsCross("hole 1", "hole 2"))
    }

    @Test func aHoleInsideAnotherHoleIsRejected() {
        let holes = [squareRing(half: 60), squareRing(half: 20)]
        #expect(rejection(.polygon(squareRing(half: 100), holes: holes)) == .holeInsideHole("hole 2", "hole 1"))
    }

    @Test func aHoleThatCrossesItselfOrHasTooFewPointsIsRejected() {
        let bowtie = ring([(-20, -20), (20, 20), (20, -20), (-20, 20)])
        #expect(rejection(.polygon(squareRing(half: 100), holes: [bowtie])) == .ringSelfIntersecting(ring: "hole 1"))
        let sliver = ring([(0, 0), (10, 0)])
        #expect(rejection(.polygon(squareRing(half: 100), holes: [sliver])) == .ringTooFewPoints(ring: "hole 1", distinct: 2))
    }

    @Test func theOuterRingOfAPolygonWithHolesIsNamed() {
        let bowtie = ring([(-100, -100), (100, 100), (100, -100), (-100, 100)])
        #expect(rejection(.polygon(bowtie, holes: [squareRing(half: 10, x: 50)])) == .ringSelfIntersecting(ring: "the outer ring"))
    }

    @Test func pointsOfEveryRingCountTowardsTheLimit() throws {
        func circleRing(_ n: Int, radius: Double) -> [Coordinate] {
            (0..<n).map { k in local(depot, x: radius * cos(Double(k) * 2 * .pi / Double(n)), y: radius * sin(Double(k) * 2 * .pi / Double(n))) }
        }
        let limit = FenceValidation.maxPolygonPoints
        #expect(rejection(.polygon(circleRing(6_000, radius: 5_000), holes: [circleRing(4_001, radius: 1_000)]))
            == .tooManyPoints(count: limit + 1, limit: limit))
        _ = try makeFence(FenceDefinition(id: "ok", shape: .polygon(circleRing(6_000, radius: 5_000), holes: [circleRing(4_000, radius: 1_000)])))
    }

    // MARK: MultiPolygons

    @Test func anEmptyMultiPolygonIsRejected() {
        #expect(rejection(.multiPolygon([])) == .emptyMultiPolygon)
    }

    @Test func membersThatCrossAreRejectedAndNamed() {
        let a = PolygonRings(outer: squareRing(half: 100)), b = PolygonRings(outer: squareRing(half: 100, x: 150))
        #expect(rejection(.multiPolygon([a, b])) == .ringsCross("polygon 0's outer ring", "polygon 1's outer ring"))
        let withBadHole = PolygonRings(outer: squareRing(half: 100, x: 500), holes: [squareRing(half: 10, x: 900)])
        #expect(rejection(.multiPolygon([a, withBadHole])) == .holeOutsideOuterRing(hole: "polygon 1's hole 1"))
    }

    // MARK: Corridors

    @Test(arguments: [0.0, -5, .nan, .infinity, -.infinity])
    func aCorridorNeedsAPositiveFiniteBuffer(buffer: Double) {
        let error = rejection(.corridor(line: ring([(0, 0), (100, 0)]), bufferMeters: buffer))
        guard case .invalidBuffer = error else {
            Issue.record("expected invalidBuffer, got \(String(describing: error))")
            return
        }
    }

    @Test func aCorridorNeedsTwoDistinctPointsOfValidCoordinates() {
        let a = local(depot, x: 0, y: 0)
        #expect(rejection(.corridor(line: [a, a], bufferMeters: 50)) == .lineTooShort(distinct: 1))
        #expect(rejection(.corridor(line: [], bufferMeters: 50)) == .lineTooShort(distinct: 0))
        #expect(rejection(.corridor(line: [a, Coordinate(lat: 95, lon: 8)], bufferMeters: 50)) == .invalidCoordinate(lat: 95, lon: 8))
    }

    @Test func aCorridorMayCrossItself() throws {
        let loop = ring([(0, 0), (200, 0), (200, 200), (100, -100)])
        _ = try makeFence(FenceDefinition(id: "loop", shape: .corridor(line: loop, bufferMeters: 30)))
    }

    // MARK: Ids, speed limits, expiry, notify

    @Test func idsLongerThan256BytesAreRejected() throws {
        _ = try makeFence(circle(String(repeating: "a", count: 256), radius: 100))
        #expect(rejection(circle(String(repeating: "a", count: 257), radius: 100)) == .idTooLong(bytes: 257))
        // Bytes, not characters: 129 umlauts are 258 bytes.
        #expect(rejection(circle(String(repeating: "ü", count: 129), radius: 100)) == .idTooLong(bytes: 258))
    }

    @Test(arguments: [-5.0, 0, .nan, .infinity])
    func aSpeedLimitMustBePositiveAndFinite(limit: Double) {
        var definition = circle("f", radius: 100)
        definition.speedLimitKmh = limit
        guard case .invalidSpeedLimit = rejection(definition) else {
            Issue.record("expected invalidSpeedLimit for \(limit)")
            return
        }
    }

    @Test func anExpiryMustBeAFiniteTime() {
        var definition = circle("f", radius: 100)
        definition.expiresAt = .nan
        guard case .invalidExpiry = rejection(definition) else {
            Issue.record("expected invalidExpiry")
            return
        }
    }

    @Test func notifyNamesOnlyEnterExitAndDwell() {
        #expect(rejection(circle("f", radius: 100, notify: [.enter, .speeding])) == .notNotifiable(.speeding))
        #expect(rejection(circle("f", radius: 100, notify: [.stopVisited])) == .notNotifiable(.stopVisited))
    }

    // MARK: Device patterns

    @Test func badDevicePatternsAreRejected() {
        func devices(_ patterns: [String]) -> FenceError? {
            var definition = circle("f", radius: 100)
            definition.devices = patterns
            return rejection(definition)
        }
        #expect(devices([]) == .invalidDevices(.empty))
        #expect(devices(["truck-*", ""]) == .invalidDevices(.emptyPattern))
        #expect(devices([String(repeating: "*", count: 10_000)]) == .invalidDevices(.patternTooLong(bytes: 10_000, limit: 256)))
        #expect(devices((0...1_000).map { "truck-\($0)" }) == .invalidDevices(.tooManyPatterns(count: 1_001, limit: 1_000)))
        #expect(devices(["fleet/+"]) == .invalidDevices(.impossibleCharacter(pattern: "fleet/+")))
        #expect(devices(["#"]) == .invalidDevices(.impossibleCharacter(pattern: "#")))
        #expect(devices([String(repeating: "a", count: 256)]) == nil)
    }

    @Test func aRejectedDefinitionLeavesTheFenceHeldAsItWas() throws {
        var engine = GeofenceEngine()
        try engine.setFence(squareWithHole("f"))
        #expect(throws: FenceError.self) {
            try engine.setFence(FenceDefinition(id: "f", shape: .polygon(squareRing(half: 100), holes: [squareRing(half: 20, x: 500)])))
        }
        #expect(engine.fence(id: "f")?.definition == squareWithHole("f"))
        #expect(engine.fenceCount == 1)
    }
}
