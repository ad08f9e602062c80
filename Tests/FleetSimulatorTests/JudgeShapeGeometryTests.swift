import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator
import SeededRandom

/// The judge's geometry for the fleet rules' shapes against the engine's, on seeded random
/// fences and points: polygons with holes, MultiPolygons (distance and the deciding member's
/// margin cap), corridors (distance, buffer clamp, cap), and device globs. Written apart, they
/// must still agree, so that a bug on either side shows here as a difference.
@Suite("Judge geometry of holes, MultiPolygons, corridors and globs agrees with the engine's")
struct JudgeShapeGeometryTests {
    let settings = GeofenceSettings()
    let shapes = JudgeGeometryTests()

    @Test func polygonsWithHoles() throws {
        var random = SeededRandom(seed: 61)
        var worst = JudgeGeometryTests.Worst()
        var inHoles = 0, sideChecks = 0
        for k in 0..<150 {
            let center = Coordinate(lat: random.uniform(-60, 60), lon: k % 10 == 0 ? 179.99 : random.uniform(-180, 180))
            let radius = exp(random.uniform(log(60.0), log(3000.0)))
            let (outer, holes) = Self.ringWithHoles(radius: radius, random: &random)
            let place = { (ring: [(x: Double, y: Double)]) in ring.map { shapes.move(center, north: $0.y, east: $0.x) } }
            let definition = FenceDefinition(id: "h\(k)", shape: .polygon(place(outer), holes: holes.map(place)))
            let engine = try Fence(definition: definition, settings: settings)
            let judge = try JudgeFence(definition: definition, settings: settings)
            #expect(abs(judge.marginCap - engine.marginCap) <= max(0.1, 0.01 * engine.marginCap),
                    "holes \(k): cap judge \(judge.marginCap), engine \(engine.marginCap)")
            for n in 0..<60 {
                let point: Coordinate
                if n < 40 {
                    // Near an edge of a hole (most) or of the outer ring, by millimetres to 60 m.
                    let ring = n % 4 == 0 || holes.isEmpty ? outer : holes[n % holes.count]
                    point = center.offsetNear(ring: ring, center: center, random: &random, tiny: n < 8)
                } else {
                    point = shapes.move(center, metres: random.uniform(0, 1.5 * radius), bearing: random.uniform(0, 360))
                }
                let e = engine.signedDistance(to: point), j = judge.signedDistance(to: point)
                worst.note(j, e, "holes \(k) point \(point)")
                #expect(abs(j - e) <= max(0.5, 0.001 * abs(e)), "holes \(k) at \(point): judge \(j), engine \(e)")
                if abs(e) > 0.01 {
                    sideChecks += 1
                    #expect((j > 0) == (e > 0), "holes \(k) at \(point): judge \(j), engine \(e)")
                }
                if e < 0, holes.contains(where: { Self.contains($0, Self.local(point, from: center)) }) { inHoles += 1 }
            }
        }
        // Meaningful: many points fell in holes (outside the fence while inside the outer ring).
        #expect(inHoles > 500 && sideChecks > 7000, "\(inHoles) in holes, \(sideChecks) sides checked")
        print("judge vs engine, polygons with holes: \(worst)")
    }

    @Test func multiPolygonsAndTheDecidingMembersCap() throws {
        var random = SeededRandom(seed: 67)
        var worst = JudgeGeometryTests.Worst()
        var capChecks = 0, differentCaps = 0
        for k in 0..<100 {
            let center = Coordinate(lat: random.uniform(-60, 60), lon: random.uniform(-180, 180))
            // Two to four members in a row west to east, sizes apart by up to 30 times, a gap between.
            var members: [PolygonRings] = []
            var x = 0.0
            var rings: [[(x: Double, y: Double)]] = []
            for m in 0..<(2 + Int(random.uniform(0, 3))) {
                let radius = exp(random.uniform(log(40.0), log(1200.0)))
                let (outer, holes) = m % 2 == 0 ? Self.ringWithHoles(radius: radius, random: &random) : (Self.convex(radius: radius, random: &random), [])
                let shift = { (ring: [(x: Double, y: Double)]) in ring.map { (x: $0.x + x + radius, y: $0.y) } }
                let place = { (ring: [(x: Double, y: Double)]) in shift(ring).map { shapes.move(center, north: $0.y, east: $0.x) } }
                members.append(PolygonRings(outer: place(outer), holes: holes.map(place)))
                rings.append(shift(outer))
                x += 2 * radius + random.uniform(20, 400)
            }
            let definition = FenceDefinition(id: "m\(k)", shape: .multiPolygon(members))
            let engine = try Fence(definition: definition, settings: settings)
            let judge = try JudgeFence(definition: definition, settings: settings)
            #expect(abs(judge.marginCap - engine.marginCap) <= max(0.1, 0.01 * engine.marginCap))
            let alone = try members.map { member in
                try JudgeFence(definition: FenceDefinition(id: "x", shape: .polygon(member.outer, holes: member.holes)), settings: settings)
            }
            for n in 0..<80 {
                let ring = rings[n % rings.count]
                let point = n < 60
                    ? center.offsetNear(ring: ring, center: center, random: &random, tiny: n < 10)
                    : shapes.move(center, north: random.uniform(-1500, 1500), east: random.uniform(-500, x + 500))
                let e = engine.signedDistance(to: point), measured = judge.measure(point)
                worst.note(measured.distance, e, "multi \(k) point \(point)")
                #expect(abs(measured.distance - e) <= max(0.5, 0.001 * abs(e)), "multi \(k) at \(point): judge \(measured.distance), engine \(e)")
                if abs(e) > 0.01 { #expect((measured.distance > 0) == (e > 0)) }
                // The deciding member's cap, where no other member comes within a metre of deciding.
                let distances = alone.map { $0.signedDistance(to: point) }.sorted(by: >)
                if distances.count < 2 || distances[0] - distances[1] > 1 {
                    capChecks += 1
                    let cap = engine.marginCap(near: point)
                    if cap != engine.marginCap { differentCaps += 1 }
                    #expect(abs(measured.cap - cap) <= max(0.1, 0.01 * cap), "multi \(k) at \(point): cap judge \(measured.cap), engine \(cap)")
                }
            }
        }
        #expect(capChecks > 6000 && differentCaps > 1000, "\(capChecks) caps checked, \(differentCaps) below the largest")
        print("judge vs engine, MultiPolygons: \(worst)")
    }

    @Test func corridorsTheirClampAndCap() throws {
        var random = SeededRandom(seed: 71)
        var worst = JudgeGeometryTests.Worst()
        var clamped = 0
        for k in 0..<200 {
            let start = Coordinate(lat: random.uniform(-70, 70), lon: k % 10 == 0 ? 179.99 : random.uniform(-180, 180))
            var line = [start]
            var bearing = random.uniform(0, 360)
            for _ in 0..<(1 + Int(random.uniform(0, 7))) {
                bearing += random.uniform(-120, 120)
                line.append(shapes.move(line.last!, metres: exp(random.uniform(log(30.0), log(3000.0))), bearing: bearing))
            }
            let buffer = exp(random.uniform(log(1.0), log(2000.0)))
            let definition = FenceDefinition(id: "c\(k)", shape: .corridor(line: line, bufferMeters: buffer))
            let engine = try Fence(definition: definition, settings: settings)
            let judge = try JudgeFence(definition: definition, settings: settings)
            #expect(judge.buffer == engine.effectiveBuffer && judge.isClamped == engine.isClamped)
            #expect(judge.marginCap == engine.marginCap)
            if judge.isClamped { clamped += 1 }
            let effective = try #require(judge.buffer)
            for n in 0..<50 {
                // Across a leg or round an end, from millimetres to metres off the boundary.
                let i = Int(random.uniform(0, Double(line.count))) % line.count
                let a = line[i], b = line[min(i + 1, line.count - 1)]
                let t = random.uniform(0, 1)
                let on = Coordinate(lat: a.lat + (b.lat - a.lat) * t, lon: a.lon + JudgePolygon.lonOffset(b.lon, from: a.lon) * t)
                let reach = n % 3 == 0 ? random.uniform(0, 3 * effective) : effective + random.uniform(-60, 60) * (n % 5 == 0 ? 0.001 : 1)
                let point = shapes.move(on, metres: max(0, reach), bearing: random.uniform(0, 360))
                let e = engine.signedDistance(to: point), j = judge.signedDistance(to: point)
                worst.note(j, e, "corridor \(k) point \(point)")
                #expect(abs(j - e) <= max(0.05, 1e-4 * abs(e)), "corridor \(k) at \(point): judge \(j), engine \(e)")
                if abs(e) > 0.01 { #expect((j > 0) == (e > 0), "corridor \(k) at \(point): judge \(j), engine \(e)") }
            }
        }
        #expect(clamped > 5)
        print("judge vs engine, corridors: \(worst)")
    }

    @Test func deviceGlobs() {
        var random = SeededRandom(seed: 73)
        let alphabet: [String] = ["a", "b", "1", "-", "é", "e\u{301}", "*", "?"]
        var matches = 0
        for _ in 0..<20_000 {
            func word(_ length: Int, wildcards: Bool) -> String {
                (0..<length).map { _ in alphabet[Int(random.uniform(0, wildcards ? 8 : 6)) % (wildcards ? 8 : 6)] }.joined()
            }
            let pattern = word(1 + Int(random.uniform(0, 6)), wildcards: true)
            let id = word(Int(random.uniform(0, 8)), wildcards: false)
            let judge = JudgeDevicePattern.matches(pattern, id), engine = DevicePattern.matches(pattern, id)
            #expect(judge == engine, "pattern \(pattern) id \(id): judge \(judge), engine \(engine)")
            if judge { matches += 1 }
        }
        #expect(matches > 500)
        // The bundled yard's patterns: odd trucks only.
        let odd = ["truck-*1", "truck-*3", "truck-*5", "truck-*7", "truck-*9"]
        #expect((1...25).filter { JudgeDevicePattern.matches(odd, "truck-\($0)") } == Array(stride(from: 1, through: 25, by: 2)))
        // Canonically equivalent spellings are two devices.
        #expect(!JudgeDevicePattern.matches("caf\u{e9}", "cafe\u{301}"))
    }

    // MARK: Random shapes

    /// A convex ring of 8 to 24 points about the origin, `radius` metres out, in angle order; each
    /// point up to `jitter` of a sector from its place, so that no two are more than 1 + jitter
    /// sectors apart.
    static func convex(radius: Double, jitter: Double = 0.8, random: inout SeededRandom) -> [(x: Double, y: Double)] {
        let count = 8 + Int(random.uniform(0, 17))
        return (0..<count).map { i in
            let angle = (Double(i) + random.uniform(0, jitter)) * 2 * .pi / Double(count)
            return (radius * cos(angle), radius * sin(angle))
        }
    }

    /// A convex outer ring and up to three convex holes well inside it and apart.
    static func ringWithHoles(radius: Double, random: inout SeededRandom) -> (outer: [(x: Double, y: Double)], holes: [[(x: Double, y: Double)]]) {
        let outer = convex(radius: radius, jitter: 0.3, random: &random)
        var holes: [[(x: Double, y: Double)]] = []
        var placed: [(x: Double, y: Double, r: Double)] = []
        for _ in 0..<(1 + Int(random.uniform(0, 3))) {
            let r = radius * random.uniform(0.05, 0.2)
            let reach = random.uniform(0, 0.55 * radius), angle = random.uniform(0, 2 * .pi)
            let c = (x: reach * cos(angle), y: reach * sin(angle))
            // Each hole's points lie within its radius of its centre; the outer ring's edges stay
            // at least 0.87 radius out (eight or more points, at most 1.3 sectors apart).
            guard reach + r < 0.75 * radius, placed.allSatisfy({ hypot($0.x - c.x, $0.y - c.y) > $0.r + r + 1 }) else { continue }
            placed.append((c.x, c.y, r))
            holes.append(convex(radius: r, random: &random).map { (x: $0.x + c.x, y: $0.y + c.y) })
        }
        return (outer, holes)
    }

    /// Whether a ring in local metres contains a point (even-odd).
    static func contains(_ ring: [(x: Double, y: Double)], _ p: (x: Double, y: Double)) -> Bool {
        var inside = false
        for i in ring.indices {
            let a = ring[i], b = ring[(i + 1) % ring.count]
            if (a.y > p.y) != (b.y > p.y), p.x < a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x) { inside.toggle() }
        }
        return inside
    }

    /// East and north metres of `point` from `center` (the plane the rings were drawn on).
    static func local(_ point: Coordinate, from center: Coordinate) -> (x: Double, y: Double) {
        let ky = JudgeGeometry.metersPerDegree
        return (JudgePolygon.lonOffset(point.lon, from: center.lon) * ky * cos(center.lat * .pi / 180), (point.lat - center.lat) * ky)
    }
}

extension Coordinate {
    /// A point near an edge of `ring` (local metres around `center`): on it, then off by up to 60 m
    /// (or by millimetres when `tiny`).
    func offsetNear(ring: [(x: Double, y: Double)], center: Coordinate, random: inout SeededRandom, tiny: Bool) -> Coordinate {
        let i = Int(random.uniform(0, Double(ring.count))) % ring.count
        let a = ring[i], b = ring[(i + 1) % ring.count]
        let t = random.uniform(0, 1)
        let reach = random.uniform(0, tiny ? 0.02 : 60), bearing = random.uniform(0, 2 * .pi)
        let moved = Geodesy.offset(
            center, north: a.y + (b.y - a.y) * t + reach * cos(bearing), east: a.x + (b.x - a.x) * t + reach * sin(bearing))
        return Coordinate(lat: moved.lat, lon: moved.lon > 180 ? moved.lon - 360 : moved.lon < -180 ? moved.lon + 360 : moved.lon)
    }
}
