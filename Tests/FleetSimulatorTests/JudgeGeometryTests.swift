import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator
import SeededRandom

/// The judge's own geometry against the engine's on seeded random fences and points. They are
/// written apart so that one's bug cannot hide in the other; here they must still agree.
@Suite("Judge geometry agrees with the engine's")
struct JudgeGeometryTests {
    let settings = GeofenceSettings()

    /// The largest disagreement seen, for the failure message.
    struct Worst: CustomStringConvertible {
        var metres = 0.0, relative = 0.0, at = ""
        mutating func note(_ judge: Double, _ engine: Double, _ what: @autoclosure () -> String) {
            let gap = abs(judge - engine)
            if gap > metres { metres = gap; at = what() }
            relative = max(relative, gap / max(abs(engine), 1))
        }
        var description: String { String(format: "%.3g m (%.3g%%) at %@", metres, relative * 100, at) }
    }

    @Test func circleDistancesAndSides() throws {
        var random = SeededRandom(seed: 41)
        var worst = Worst()
        for k in 0..<200 {
            let center = Coordinate(lat: random.uniform(-80, 80), lon: random.uniform(-180, 180))
            let radius = exp(random.uniform(log(1.0), log(300_000.0)))
            let definition = FenceDefinition(id: "c\(k)", shape: .circle(center: center, radius: radius))
            let engine = try Fence(definition: definition, settings: settings)
            let judge = try JudgeFence(definition: definition, settings: settings)
            let clamped = try #require(engine.effectiveRadius)
            for n in 0..<50 {
                // Half near the boundary (centimetres to the evidence band), half anywhere out to three radii.
                let reach = n % 2 == 0 ? clamped + random.uniform(-60, 60) * (n % 4 == 0 ? 0.001 : 1) : random.uniform(0, 3 * clamped)
                let point = move(center, metres: max(0, reach), bearing: random.uniform(0, 360))
                let e = engine.signedDistance(to: point), j = judge.signedDistance(to: point)
                worst.note(j, e, "circle \(k) r \(clamped) point \(point)")
                #expect(abs(j - e) <= max(0.005, 1e-6 * abs(e)), "circle \(k) at \(point): judge \(j), engine \(e)")
                if abs(e) > 0.01 { #expect((j > 0) == (e > 0), "circle \(k) at \(point): judge \(j), engine \(e)") }
            }
        }
        print("judge vs engine, circle signed distance: \(worst)")
    }

    @Test(arguments: PolygonKind.allCases)
    func polygonDistancesAndSides(kind: PolygonKind) throws {
        var random = SeededRandom(seed: 43, stream: UInt64(kind.rawValue))
        var worst = Worst(), worstNear = Worst()
        var sideChecks = 0
        for k in 0..<150 {
            // Up to 4 km across and 60° of latitude: see `largePolygonsPartByTheirScale`.
            let center = Coordinate(lat: random.uniform(-60, 60), lon: k % 10 == 0 ? 179.995 : random.uniform(-180, 180))
            let ring = kind.ring(size: exp(random.uniform(log(30.0), log(4000.0))), random: &random).map {
                move(center, north: $0.y, east: $0.x)
            }
            let definition = FenceDefinition(id: "p\(k)", shape: .polygon(ring + [ring[0]]))
            let engine = try Fence(definition: definition, settings: settings)
            let judge = try JudgeFence(definition: definition, settings: settings)
            for n in 0..<60 {
                let point: Coordinate
                if n < 40 {
                    // On an edge, then off it by up to 60 m, or by millimetres.
                    let i = Int(random.uniform(0, Double(ring.count))) % ring.count
                    let a = ring[i], b = ring[(i + 1) % ring.count]
                    let t = random.uniform(0, 1)
                    let lonB = a.lon + JudgePolygon.lonOffset(b.lon, from: a.lon)
                    let onEdge = Coordinate(lat: a.lat + (b.lat - a.lat) * t, lon: wrap(a.lon + (lonB - a.lon) * t))
                    point = move(onEdge, metres: random.uniform(0, n < 10 ? 0.02 : 60), bearing: random.uniform(0, 360))
                } else {
                    point = move(center, metres: random.uniform(0, 6000), bearing: random.uniform(0, 360))
                }
                let e = engine.signedDistance(to: point), j = judge.signedDistance(to: point)
                worst.note(j, e, "\(kind) \(k) point \(point)")
                if abs(e) < 100 { worstNear.note(j, e, "\(kind) \(k) point \(point)") }
                #expect(abs(j - e) <= max(0.5, 0.001 * abs(e)), "\(kind) \(k) at \(point): judge \(j), engine \(e)")
                if abs(e) > 0.01 {
                    sideChecks += 1
                    #expect((j > 0) == (e > 0), "\(kind) \(k) at \(point): judge \(j), engine \(e)")
                }
            }
        }
        #expect(sideChecks > 7500)
        print("judge vs engine, \(kind) polygon signed distance: \(worst); within 100 m of the boundary: \(worstNear)")
    }

    /// The engine measures a polygon on a plane scaled at the fence's middle latitude, the judge
    /// on one scaled at the queried point: far from the middle they part by about tan(lat) times
    /// the latitude between them, in radians (0.3% at 60°, 10 km north of the middle).
    @Test func largePolygonsPartByTheirScale() throws {
        var random = SeededRandom(seed: 47)
        var worst = Worst()
        for k in 0..<40 {
            let center = Coordinate(lat: random.uniform(-60, 60), lon: random.uniform(-180, 180))
            let ring = PolygonKind.star.ring(size: random.uniform(10_000, 40_000), random: &random).map {
                move(center, north: $0.y, east: $0.x)
            }
            let definition = FenceDefinition(id: "big\(k)", shape: .polygon(ring))
            let engine = try Fence(definition: definition, settings: settings)
            let judge = try JudgeFence(definition: definition, settings: settings)
            for _ in 0..<100 {
                let point = move(center, metres: random.uniform(0, 30_000), bearing: random.uniform(0, 360))
                let e = engine.signedDistance(to: point), j = judge.signedDistance(to: point)
                worst.note(j, e, "big \(k) point \(point)")
                let apart = abs(point.lat - center.lat) * .pi / 180 * tan(abs(point.lat) * .pi / 180) + 1e-3
                #expect(abs(j - e) <= max(0.5, 1.5 * apart * abs(e)), "big \(k) at \(point): judge \(j), engine \(e)")
                if abs(e) > 0.01 { #expect((j > 0) == (e > 0)) }
            }
        }
        print("judge vs engine, large polygon signed distance: \(worst)")
    }

    @Test func marginCapsOfPolygons() throws {
        var worst = Worst()
        for kind in PolygonKind.allCases {
            var random = SeededRandom(seed: 53, stream: UInt64(kind.rawValue))
            for k in 0..<60 {
                let center = Coordinate(lat: random.uniform(-60, 60), lon: random.uniform(-180, 180))
                let ring = kind.ring(size: exp(random.uniform(log(30.0), log(20_000.0))), random: &random).map {
                    move(center, north: $0.y, east: $0.x)
                }
                let definition = FenceDefinition(id: "m\(k)", shape: .polygon(ring))
                let engine = try Fence(definition: definition, settings: settings)
                let judge = try JudgeFence(definition: definition, settings: settings)
                worst.note(judge.marginCap, engine.marginCap, "\(kind) \(k) cap \(engine.marginCap)")
                #expect(abs(judge.marginCap - engine.marginCap) <= max(0.1, 0.01 * engine.marginCap),
                        "\(kind) \(k): judge \(judge.marginCap), engine \(engine.marginCap)")
                for _ in 0..<20 {
                    let hysteresis = random.uniform(0, 40), accuracy = random.uniform(0, 120)
                    let rule = min(max(hysteresis, accuracy), engine.marginCap)
                    let judged = judge.evidenceMargin(hysteresis: hysteresis, accuracy: accuracy)
                    #expect(abs(judged - rule) <= max(0.1, 0.01 * rule))
                }
            }
        }
        print("judge vs engine, polygon margin cap: \(worst)")
    }

    @Test func radiusClampAndCircleMargins() throws {
        var random = SeededRandom(seed: 59)
        for k in 0..<5000 {
            let lower = random.uniform(0, 200), upper = random.uniform(0, 500)
            let radius = k % 7 == 0 ? [lower, upper][k % 2] : exp(random.uniform(log(0.01), log(1e6)))
            #expect(JudgeGeometry.clamp(radius: radius, lower: lower, upper: upper)
                    == RadiusClamp.clamp(radius, min: lower, max: upper), "r \(radius) in [\(lower), \(upper)]")
            let settings = GeofenceSettings(minRadiusMeters: lower, maxRadiusMeters: upper)
            let definition = FenceDefinition(id: "c", shape: .circle(center: Coordinate(lat: 49, lon: 8), radius: radius))
            let engine = try Fence(definition: definition, settings: settings)
            let judge = try JudgeFence(definition: definition, settings: settings)
            #expect(judge.radius == engine.effectiveRadius && judge.isClamped == engine.isClamped)
            #expect(judge.marginCap == engine.marginCap)
            let hysteresis = random.uniform(0, 40), accuracy = random.uniform(0, 120)
            #expect(judge.evidenceMargin(hysteresis: hysteresis, accuracy: accuracy)
                    == min(max(hysteresis, accuracy), engine.marginCap))
        }
    }

    @Test func refusesWhatTheEngineRefuses() {
        let bowtie = [(0.0, 0.0), (1, 1), (1, 0), (0, 1)].map { Coordinate(lat: 49 + $0.1 * 0.001, lon: 8 + $0.0 * 0.001) }
        for shape in [FenceShape.polygon(bowtie), .circle(center: Coordinate(lat: 49, lon: 8), radius: -1)] {
            #expect(throws: FenceError.self) { try JudgeFence(definition: FenceDefinition(id: "x", shape: shape), settings: settings) }
        }
    }

    // MARK: Random shapes

    enum PolygonKind: Int, CaseIterable, CustomStringConvertible, Sendable {
        /// Points on an ellipse, in angle order.
        case convex
        /// Points at random distances around a centre, in angle order: concave, often deeply.
        case star
        /// A block with rectangular notches cut into its top.
        case comb
        /// A thin rotated strip, up to 60 times longer than wide.
        case sliver

        var description: String { ["convex", "star", "comb", "sliver"][rawValue] }

        /// Vertices in metres (east, north) around the origin, about `size` across, open.
        func ring(size: Double, random: inout SeededRandom) -> [(x: Double, y: Double)] {
            let rotation = random.uniform(0, 2 * .pi)
            var points: [(x: Double, y: Double)]
            switch self {
            case .convex, .star:
                // One vertex per sector, so the ring winds once around the centre and stays simple.
                let count = 3 + Int(random.uniform(0, 30))
                let angles = (0..<count).map { (Double($0) + random.uniform(0, 0.9)) * 2 * .pi / Double(count) }
                let squash = self == .convex ? random.uniform(0.2, 1) : 1
                points = angles.map { angle in
                    let reach = size / 2 * (self == .star ? random.uniform(0.2, 1) : 1)
                    return (reach * cos(angle), reach * squash * sin(angle))
                }
            case .comb:
                let teeth = 2 + Int(random.uniform(0, 4))
                let width = size / Double(2 * teeth - 1), height = size * random.uniform(0.3, 1)
                points = [(0, 0), (size, 0)]
                for j in stride(from: 2 * teeth - 2, through: 0, by: -1) {
                    let top = j % 2 == 0 ? height : height * random.uniform(0.1, 0.7)
                    points += [(Double(j + 1) * width, top), (Double(j) * width, top)]
                }
            case .sliver:
                let width = size / random.uniform(5, 60)
                points = [(0, 0), (size, 0), (size, width), (0, width)]
            }
            return points.map { p in
                (p.x * cos(rotation) - p.y * sin(rotation), p.x * sin(rotation) + p.y * cos(rotation))
            }
        }
    }

    /// `c` moved `metres` along `bearing` (degrees from north), on a local plane.
    func move(_ c: Coordinate, metres: Double, bearing: Double) -> Coordinate {
        move(c, north: metres * cos(bearing * .pi / 180), east: metres * sin(bearing * .pi / 180))
    }

    func move(_ c: Coordinate, north: Double, east: Double) -> Coordinate {
        let moved = Geodesy.offset(c, north: north, east: east)
        return Coordinate(lat: moved.lat, lon: wrap(moved.lon))
    }

    func wrap(_ lon: Double) -> Double {
        lon > 180 ? lon - 360 : lon < -180 ? lon + 360 : lon
    }
}

extension SeededRandom {
    mutating func uniform(_ lower: Double, _ upper: Double) -> Double {
        lower + (upper - lower) * nextUnit()
    }
}
