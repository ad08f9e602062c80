import Foundation
import Testing

@testable import GeofenceEngine
import SeededRandom

// MARK: - A random fleet in a random town

/// One thing that happens to the engine, in wall-clock order.
struct FleetEvent {
    var device: String
    var sample: PositionSample
    var arrival: Double
}

struct RandomTown {
    var fences: [FenceDefinition] = []
    var tours: [TourDefinition] = []
    /// Every device's samples in arrival order, including duplicates and late ones.
    var events: [FleetEvent] = []

    /// `silences`: devices sometimes stop reporting for minutes, so that `tick` confirms changes.
    /// `fleetRules`: some squares get a hole, corridors join in, fences are for some devices and
    /// have speed limits, samples carry their speed, and two tours run over some of the fences
    /// (from a second stream of the seed, so that the town is otherwise the same).
    init(seed: UInt64, fenceCount: Int = 30, devices: Int = 6, steps: Int = 1_200, silences: Bool, fleetRules: Bool = false) {
        var rng = SeededRandom(seed: seed)
        var rules = SeededRandom(seed: seed, stream: 1)
        for k in 0..<fenceCount {
            let center = destination(depot, bearing: rng.uniform(0...360), meters: 3_000 * rng.uniform(0...1).squareRoot())
            let dwell: Double? = rng.chance(0.3) ? rng.uniform(30...600) : nil
            let id = "f\(k)"
            switch rng.uniform(0...1) {
            case ..<0.5:
                fences.append(circle(id, at: center, radius: rng.uniform(25...500), dwell: dwell))
            case ..<0.85:
                let half = rng.uniform(40...400)
                var f = square(id, around: center, half: half)
                f.dwellSeconds = dwell
                fences.append(f)
            default:
                let scale = rng.uniform(0.5...3)
                fences.append(polygon(id, around: center, lShape.map { ($0.0 * scale, $0.1 * scale) }, dwell: dwell))
            }
            guard fleetRules else { continue }
            if case let .polygon(outer, _) = fences[k].shape, outer.count == 4, rules.chance(0.5) {
                let half = Earth.distance(outer[0], outer[1]) / 2
                fences[k].shape = .polygon(outer, holes: [squareRing(half: half * rules.uniform(0.2...0.6), around: center)])
            }
            if rules.chance(0.2) {
                let end = destination(center, bearing: rules.uniform(0...360), meters: rules.uniform(300...2_000))
                fences[k].shape = .corridor(line: [center, end], bufferMeters: rules.uniform(15...80))
            }
            fences[k].devices = [["*"], ["truck-*"], ["truck-1", "truck-3"], ["truck-?", "van-*"], ["*-2", "truck-4"], ["nobody-*"]]
                .randomElement(using: &rules)!
            if rules.chance(0.3) { fences[k].speedLimitKmh = rules.uniform(20...50) }
        }
        if fleetRules {
            let ids = fences.map(\.id).shuffled(using: &rules)
            tours = [
                TourDefinition(id: "ordered", devices: ["truck-*"], stops: Array(ids.prefix(4))),
                TourDefinition(id: "any", devices: ["truck-1", "truck-2", "truck-5"], stops: Array(ids.dropFirst(4).prefix(5)), ordered: false),
            ]
        }
        for d in 0..<devices {
            let device = "truck-\(d)"
            var position = destination(depot, bearing: rng.uniform(0...360), meters: 3_500 * rng.uniform(0...1).squareRoot())
            var heading = rng.uniform(0...360)
            var speed = rng.uniform(0...15)
            var t = T0 + rng.uniform(0...30)
            var parkedFor = 0
            var emitted: [(PositionSample, Double)] = []
            for _ in 0..<steps {
                var interval = rng.uniform(1...12)
                if silences && rng.chance(0.01) { interval = rng.uniform(25...300) }
                t += interval
                if parkedFor > 0 {
                    parkedFor -= 1
                } else {
                    if rng.chance(0.01) { parkedFor = rng.int(5...60) }
                    speed = min(20, max(0, speed + rng.uniform(-2...2)))
                    heading += rng.uniform(-25...25)
                    if Earth.distance(position, depot) > 4_000 { heading = initialBearing(from: position, to: depot) }
                    position = destination(position, bearing: heading, meters: speed * interval)
                }
                let sigma = rng.uniform(0...15)
                let observed = destination(position, bearing: rng.uniform(0...360), meters: abs(sigma * rng.uniform(-1.5...1.5)))
                let accuracy: Double? =
                    switch rng.uniform(0...1) {
                    case ..<0.3: nil
                    case ..<0.97: rng.uniform(3...40)
                    default: 150
                    }
                var s = sample(observed, t: t, acc: accuracy)
                if fleetRules { s.speed = speed }
                let arrival = t + rng.uniform(0.1...2)
                emitted.append((s, arrival))
                if rng.chance(0.03) { emitted.append((s, arrival + 0.01)) }  // duplicate
                if rng.chance(0.02), emitted.count > 5 {  // an old sample arriving late
                    let old = emitted[emitted.count - rng.int(2...5)].0
                    emitted.append((old, arrival + 0.02))
                }
            }
            events += emitted.map { FleetEvent(device: device, sample: $0.0, arrival: $0.1) }
        }
        events.sort { ($0.arrival, $0.device) < ($1.arrival, $1.device) }
    }

    func engine(settings: GeofenceSettings = GeofenceSettings()) throws -> GeofenceEngine {
        var engine = GeofenceEngine(settings: settings)
        for fence in fences { try engine.setFence(fence) }
        for tour in tours { try engine.setTour(tour) }
        return engine
    }

    /// An engine that holds, for every device, only what is for `device`: the reference for
    /// targeting.
    func engine(onlyFor device: String) throws -> GeofenceEngine {
        var engine = GeofenceEngine()
        for fence in fences where fence.devices.contains(where: { DevicePattern.matches($0, device) }) {
            try engine.setFence(fence.only(["*"]))
        }
        for var tour in tours where tour.devices.contains(where: { DevicePattern.matches($0, device) }) {
            tour.devices = ["*"]
            try engine.setTour(tour)
        }
        return engine
    }
}

/// Feeds `events` in order, ticking every `tickEvery` seconds of wall clock (0: never).
func run(_ events: ArraySlice<FleetEvent>, on engine: inout GeofenceEngine, tickEvery: Double, lastTick: inout Double)
    -> [Transition]
{
    var alerts: [Transition] = []
    for event in events {
        if tickEvery > 0, event.arrival - lastTick >= tickEvery {
            engine.tick(now: event.arrival, into: &alerts)
            lastTick = event.arrival
        }
        engine.process(device: event.device, sample: event.sample, arrival: event.arrival, into: &alerts)
    }
    return alerts
}

func byDevice(_ alerts: [Transition]) -> [String: [Transition]] {
    Dictionary(grouping: alerts, by: \.device)
}

// MARK: - Properties

@Suite("Properties (seeded)")
struct PropertyTests {
    @Test(arguments: 1...20 as ClosedRange<UInt64>)
    func randomWalksWhoseNoiseStaysInsideTheBandNeverAlert(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let center = Coordinate(lat: rng.uniform(-70...70), lon: rng.uniform(-180...180))
        let isCircle = rng.chance(0.5)
        let size = isCircle ? rng.logUniform(20...20_000) : rng.logUniform(50...5_000)
        let definition = isCircle ? circle("f", at: center, radius: size) : square("f", around: center, half: size)
        var h = try Harness([definition])
        let cap = try #require(h.engine.fence(id: "f")?.marginCap)
        let hysteresis = h.engine.settings.hysteresisMeters

        /// A point at signed distance `d` from the boundary, somewhere along it.
        func onBand(_ d: Double) -> Coordinate {
            if isCircle { return atBoundary(of: center, radius: size, d: d, bearing: rng.uniform(0...360)) }
            let u = rng.uniform(-0.8...0.8) * size, edge = size - d
            switch rng.int(0...3) {
            case 0: return local(center, x: u, y: edge)
            case 1: return local(center, x: edge, y: u)
            case 2: return local(center, x: u, y: -edge)
            default: return local(center, x: -edge, y: u)
            }
        }

        let startInside = rng.chance(0.5)
        var t = T0
        h.feed([sample(onBand((min(hysteresis, cap) + 1) * (startInside ? 1 : -1)), t: t)])
        let known: RegionState = startInside ? .inside : .outside
        #expect(h.engine.state(of: "truck-7", in: "f") == known)
        for k in 0..<400 {
            t += rng.uniform(0.5...30)
            let accuracy: Double? =
                switch rng.uniform(0...1) {
                case ..<0.4: nil
                case ..<0.7: rng.uniform(0...(hysteresis - 1))
                case ..<0.9: rng.uniform((hysteresis - 1)...100)
                default: 150
                }
            h.feed([sample(onBand(rng.uniform(-(hysteresis - 1)...(hysteresis - 1))), t: t, acc: accuracy)])
            if k % 50 == 49 { h.tick(t + 1_000) }
        }
        #expect(h.alerts.isEmpty)
        #expect(h.engine.state(of: "truck-7", in: "f") == known)
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func alertsStrictlyAlternateEnterAndExitPerDeviceAndFence(seed: UInt64) throws {
        let town = RandomTown(seed: seed, silences: true)
        var engine = try town.engine()
        var lastTick = -Double.infinity
        var alerts = run(town.events[...], on: &engine, tickEvery: 5, lastTick: &lastTick)
        engine.tick(now: town.events.last!.arrival + 1_000, into: &alerts)
        #expect(alerts.count > 50, "the walk should cross fences often")

        for (device, deviceAlerts) in byDevice(alerts) {
            // seq: +1 per emitted alert of the device, in emission order.
            #expect(deviceAlerts.map(\.seq) == Array(1...UInt64(deviceAlerts.count)), "\(device)")
            for (fence, pairAlerts) in Dictionary(grouping: deviceAlerts, by: \.fenceID) {
                var inside: Bool? = nil  // unknown before the first enter or exit
                var dwelled = false
                var lastConfirmed = -Double.infinity
                for alert in pairAlerts {
                    #expect(alert.confirmedAt >= lastConfirmed, "\(device) \(fence) out of order")
                    lastConfirmed = alert.confirmedAt
                    switch alert.event {
                    case .enter:
                        #expect(inside != true, "\(device) \(fence): enter twice, seq \(alert.seq)")
                        inside = true
                        dwelled = false
                        #expect(alert.at <= alert.confirmedAt)
                    case .exit:
                        #expect(inside != false, "\(device) \(fence): exit twice, seq \(alert.seq)")
                        inside = false
                        #expect(alert.at <= alert.confirmedAt)
                        #expect(try #require(alert.durationSeconds) >= 0)
                    case .dwell:
                        #expect(inside != false, "\(device) \(fence): dwell while outside")
                        #expect(!dwelled, "\(device) \(fence): dwell twice in one stay")
                        dwelled = true
                        let threshold = try #require(town.fences.first { $0.id == fence }?.dwellSeconds)
                        #expect(try #require(alert.dwellSeconds) >= threshold)
                    case .speeding, .stopVisited, .stopSkipped, .tourCompleted:
                        Issue.record("\(device) \(fence): \(alert.event) in a town without speed limits or tours")
                    }
                }
                if let inside {
                    #expect(engine.state(of: device, in: fence) == (inside ? .inside : .outside), "\(device) \(fence)")
                }
            }
        }
    }

    @Test(arguments: [21, 22] as [UInt64])
    func splittingTheStreamIntoBatchesOrInterleavingDevicesDifferentlyGivesTheSameAlerts(seed: UInt64) throws {
        // No silences: then a tick between batches can never find a device silent mid-stream.
        let town = RandomTown(seed: seed, steps: 800, silences: false)
        let end = town.events.last!.arrival + 1_000

        // One at a time, in arrival order.
        var single = try town.engine()
        var never = 0.0
        var reference = run(town.events[...], on: &single, tickEvery: 0, lastTick: &never)
        single.tick(now: end, into: &reference)
        #expect(reference.count > 20)

        // Random batches in arrival order, a tick after each batch.
        var rng = SeededRandom(seed: seed)
        var batched = try town.engine()
        var batchedAlerts: [Transition] = []
        var start = 0
        while start < town.events.count {
            let stop = min(town.events.count, start + rng.int(1...400))
            batchedAlerts += run(town.events[start..<stop], on: &batched, tickEvery: 0, lastTick: &never)
            batched.tick(now: town.events[stop - 1].arrival, into: &batchedAlerts)
            start = stop
        }
        batched.tick(now: end, into: &batchedAlerts)

        // Device after device.
        var serial = try town.engine()
        let deviceOrder = Array(Set(town.events.map(\.device))).sorted().shuffled(using: &rng)
        var serialAlerts: [Transition] = []
        for device in deviceOrder {
            serialAlerts += run(town.events.filter { $0.device == device }[...], on: &serial, tickEvery: 0, lastTick: &never)
        }
        serial.tick(now: end, into: &serialAlerts)

        // A random interleaving that keeps each device's order.
        var queues = Dictionary(grouping: town.events, by: \.device).mapValues { $0[...] }
        var shuffled: [FleetEvent] = []
        while !queues.isEmpty {
            let device = queues.keys.sorted().randomElement(using: &rng)!
            shuffled.append(queues[device]!.removeFirst())
            if queues[device]!.isEmpty { queues[device] = nil }
        }
        var mixed = try town.engine()
        var mixedAlerts = run(shuffled[...], on: &mixed, tickEvery: 0, lastTick: &never)
        mixed.tick(now: end, into: &mixedAlerts)

        let expected = byDevice(reference)
        #expect(byDevice(batchedAlerts) == expected)
        #expect(byDevice(serialAlerts) == expected)
        #expect(byDevice(mixedAlerts) == expected)
        #expect(batched.snapshot() == single.snapshot())
    }

    @Test(arguments: [31, 32, 33, 34] as [UInt64])
    func restoreAtARandomPointGivesTheSameAlertsAsNoRestore(seed: UInt64) throws {
        let town = RandomTown(seed: seed, steps: 800, silences: true)
        // A restart forgets the samples held for merging late ones (docs/rules.md "Late samples"): the
        // rule compared here is the one without them.
        let settings = GeofenceSettings(lateWindowSeconds: 0)
        var plain = try town.engine(settings: settings)
        var lastTick = -Double.infinity
        let reference = run(town.events[...], on: &plain, tickEvery: 5, lastTick: &lastTick)
        #expect(reference.count > 20)

        var rng = SeededRandom(seed: seed &* 977)
        let cuts = (0..<3).map { _ in rng.int(0...(town.events.count - 1)) }.sorted()
        var engine = try town.engine(settings: settings)
        var alerts: [Transition] = []
        lastTick = -Double.infinity
        var start = 0
        for cut in cuts + [town.events.count] {
            alerts += run(town.events[start..<cut], on: &engine, tickEvery: 5, lastTick: &lastTick)
            let json = try JSONEncoder().encode(engine.snapshot())
            engine = GeofenceEngine(settings: settings, restoring: try JSONDecoder().decode(EngineSnapshot.self, from: json))
            start = cut
        }
        #expect(alerts.count == reference.count)
        #expect(alerts == reference)
        if alerts != reference, let first = Array(zip(alerts, reference)).firstIndex(where: { $0 != $1 }) {
            Issue.record("first difference at alert \(first): \(alerts[first]) vs \(reference[first])")
        }
    }

    /// Targeting changes nothing but who sees a fence: the engine with every fence gives each
    /// device exactly the alerts (fences', speeding, tours') of an engine holding only the fences
    /// and tours for that device, ticked at the same moments.
    @Test(arguments: [71, 72, 73] as [UInt64])
    func targetingIsEachDeviceSeeingOnlyItsOwnFences(seed: UInt64) throws {
        let town = RandomTown(seed: seed, steps: 900, silences: true, fleetRules: true)
        var ticks: [Int: Double] = [:]
        var full = try town.engine()
        var alerts: [Transition] = []
        var lastTick = -Double.infinity
        for (k, event) in town.events.enumerated() {
            if event.arrival - lastTick >= 5 {
                ticks[k] = event.arrival
                full.tick(now: event.arrival, into: &alerts)
                lastTick = event.arrival
            }
            full.process(device: event.device, sample: event.sample, arrival: event.arrival, into: &alerts)
        }
        #expect(alerts.count > 30)
        #expect(alerts.contains { $0.event == .speeding } && alerts.contains { $0.event.isTourEvent })
        let devices = Set(town.events.map(\.device)).sorted()
        for device in devices {
            var alone = try town.engine(onlyFor: device)
            var own: [Transition] = []
            for (k, event) in town.events.enumerated() {
                if let now = ticks[k] { alone.tick(now: now, into: &own) }
                if event.device == device { alone.process(device: device, sample: event.sample, arrival: event.arrival, into: &own) }
            }
            #expect(alerts.filter { $0.device == device } == own, "\(device)")
            for fence in town.fences where !fence.devices.contains(where: { DevicePattern.matches($0, device) }) {
                #expect(full.state(of: device, in: fence.id) == .unknown, "\(device) has no state at \(fence.id)")
            }
        }
    }

    /// For a device, the index hands out exactly the fences for it near the point: those whose
    /// patterns match and whose band reaches it, by brute force over every fence.
    @Test(arguments: [81, 82] as [UInt64])
    func theIndexHandsADeviceExactlyTheFencesForIt(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let patterns: [[String]] = [["*"], ["truck-*"], ["truck-1?"], ["van-*", "truck-3"], ["*-x"], ["bus-\u{00FC}*"]]
        var definitions = Self.randomFences(seed: seed, count: 300, nearAntimeridian: false)
        for k in definitions.indices { definitions[k].devices = patterns.randomElement(using: &rng)! }
        var engine = GeofenceEngine()
        for definition in definitions { try engine.setFence(definition) }
        let fences = try definitions.map { try makeFence($0) }
        let devices = ["truck-1", "truck-12", "truck-3", "van-9", "a-x", "bus-\u{00FC}1", "bus-u\u{0308}1", "nobody"]
        var transitions: [Transition] = []
        for device in devices { engine.process(device: device, sample: sample(depot, t: T0), arrival: T0, into: &transitions) }
        var found = 0
        for point in Self.randomPoints(seed: seed &+ 1, count: 1_500, near: fences) {
            for device in devices {
                let slot = try #require(engine.devices.slot(of: device))
                var slots: [Int32] = []
                engine.index.candidates(lat: point.lat, lon: point.lon, groups: engine.devices.groups(of: Int(slot)), into: &slots)
                let viaIndex = Set(slots.compactMap { slot -> String? in
                    let fence = engine.fenceSlots[Int(slot)]!
                    return fence.signedDistance(to: point) > -min(fence.marginCap(near: point), fence.reachMargin) ? fence.id : nil
                })
                let brute = Set(fences.filter { fence in
                    fence.definition.devices.contains { DevicePattern.matches($0, device) }
                        && fence.signedDistance(to: point) > -min(fence.marginCap(near: point), fence.reachMargin)
                }.map(\.id))
                found += brute.count
                #expect(viaIndex == brute, "\(device) at (\(point.lat), \(point.lon))")
            }
        }
        #expect(found > 1_000)
    }

    // MARK: Index

    /// Random circles and polygons from 20 m to 100 km, worldwide, near the poles and near the
    /// antimeridian; random points, most of them near a fence.
    static func randomFences(seed: UInt64, count: Int, nearAntimeridian: Bool) -> [FenceDefinition] {
        var rng = SeededRandom(seed: seed)
        var fences: [FenceDefinition] = []
        while fences.count < count {
            let isCircle = rng.chance(0.4)
            let size = isCircle ? rng.logUniform(20...100_000) : rng.logUniform(20...50_000)
            let center: Coordinate
            if nearAntimeridian {
                // Within about one and a half sizes of +-180: most reaches cross it.
                let lat = rng.uniform(-75...75)
                let offset = rng.uniform(-1.5...1.5) * size / metersPerDegree / cos(lat * .pi / 180)
                center = Coordinate(lat: lat, lon: normalizedLongitude(180 + offset))
            } else {
                switch rng.uniform(0...1) {
                case ..<0.5: center = Coordinate(lat: asin(rng.uniform(-1...1)) * 180 / .pi, lon: rng.uniform(-180...180))
                case ..<0.75: center = Coordinate(lat: rng.uniform(80...89.999) * (rng.chance(0.5) ? 1 : -1), lon: rng.uniform(-180...180))
                default: center = Coordinate(lat: rng.uniform(-75...75), lon: normalizedLongitude(180 + rng.uniform(-2...2)))
                }
            }
            let id = "f\(fences.count)"
            /// A star-shaped ring of 3 to 10 points around `c`, `scale` times the size.
            func star(_ c: Coordinate, _ scale: Double) -> [Coordinate] {
                let n = rng.int(3...10)
                let angles = (0..<n).map { _ in rng.uniform(0...(2 * .pi)) }.sorted()
                return angles.map { a in destination(c, bearing: a * 180 / .pi, meters: scale * size * rng.uniform(0.4...1)) }
            }
            let definition: FenceDefinition
            switch (isCircle, rng.uniform(0...1)) {
            case (true, _):
                definition = circle(id, at: center, radius: size)
            case (false, ..<0.55):
                definition = FenceDefinition(id: id, shape: .polygon(star(center, 1)))
            case (false, ..<0.7):
                // A hole in the middle: a small star inside the smallest radius the outer ring can have.
                let outer = star(center, 1)
                let hole = (0..<5).map { k in destination(center, bearing: Double(k) * 72, meters: size * 0.3) }
                definition = FenceDefinition(id: id, shape: .polygon(outer, holes: [hole]))
            case (false, ..<0.85):
                let second = destination(center, bearing: rng.uniform(0...360), meters: size * 3)
                definition = FenceDefinition(id: id, shape: .multiPolygon([PolygonRings(outer: star(center, 1)), PolygonRings(outer: star(second, 0.5))]))
            default:
                var point = center
                let line = (0..<rng.int(2...12)).map { _ -> Coordinate in
                    defer { point = destination(point, bearing: rng.uniform(0...360), meters: size * rng.uniform(0.2...1)) }
                    return point
                }
                definition = FenceDefinition(id: id, shape: .corridor(line: line, bufferMeters: size * rng.uniform(0.05...0.3)))
            }
            if (try? makeFence(definition)) != nil { fences.append(definition) }
        }
        return fences
    }

    static func randomPoints(seed: UInt64, count: Int, near fences: [Fence]) -> [Coordinate] {
        var rng = SeededRandom(seed: seed)
        return (0..<count).map { _ in
            switch rng.uniform(0...1) {
            case ..<0.3:
                // Near the boundary: around a circle's rim or a polygon's vertex.
                let fence = fences.randomElement(using: &rng)!
                switch fence.definition.shape {
                case let .circle(center, _):
                    let r = fence.effectiveRadius! + 1.5 * fence.marginCap
                    return destination(center, bearing: rng.uniform(0...360), meters: rng.uniform(0...r))
                case let .polygon(ring, holes):
                    let vertex = (ring + holes.flatMap { $0 }).randomElement(using: &rng)!
                    return destination(vertex, bearing: rng.uniform(0...360), meters: rng.uniform(0...(3 * fence.marginCap)))
                case let .multiPolygon(members):
                    let vertex = members.flatMap { [$0.outer] + $0.holes }.flatMap { $0 }.randomElement(using: &rng)!
                    return destination(vertex, bearing: rng.uniform(0...360), meters: rng.uniform(0...(3 * fence.marginCap)))
                case let .corridor(line, buffer):
                    let vertex = line.randomElement(using: &rng)!
                    return destination(vertex, bearing: rng.uniform(0...360), meters: rng.uniform(0...(buffer + 1.5 * fence.marginCap)))
                }
            case ..<0.6:
                let fence = fences.randomElement(using: &rng)!
                let box = fence.reach
                // Anywhere in (or just past) the fence's reach box.
                let lat = min(90, max(-90, rng.uniform((box.minLat - 0.01)...(box.maxLat + 0.01))))
                let lon = normalizedLongitude(rng.uniform((box.minLon - 0.01)...(min(box.maxLon, box.minLon + 360) + 0.01)))
                return Coordinate(lat: lat, lon: lon)
            case ..<0.8:
                return Coordinate(lat: asin(rng.uniform(-1...1)) * 180 / .pi, lon: rng.uniform(-180...180))
            default:
                return Coordinate(lat: rng.uniform(-80...80), lon: normalizedLongitude(180 + rng.uniform(-1...1)))
            }
        }
    }

    static func crossesAntimeridian(_ fence: Fence) -> Bool {
        let box = fence.reach
        return !box.coversAllLongitudes && (box.minLon < -180 || box.maxLon > 180)
    }

    /// The mismatches between the index and brute force over random fences and points.
    static func indexMismatches(seed: UInt64, antimeridian: Bool) throws -> (checked: Int, found: Int, misses: [String]) {
        let definitions = randomFences(seed: seed, count: 300, nearAntimeridian: antimeridian)
        var engine = GeofenceEngine()
        var kept: [Fence] = []
        for definition in definitions {
            let fence = try makeFence(definition)
            guard crossesAntimeridian(fence) == antimeridian else { continue }
            try engine.setFence(definition)
            kept.append(fence)
        }
        var misses: [String] = []
        var found = 0
        let points = randomPoints(seed: seed &+ 1, count: 2_500, near: kept)
        for p in points {
            let viaIndex = engine.fencesNear(lat: p.lat, lon: p.lon)
            let brute = engine.fencesNearByBruteForce(lat: p.lat, lon: p.lon)
            found += brute.count
            if viaIndex != brute { misses.append("(\(p.lat), \(p.lon)): index \(viaIndex) brute \(brute)") }
        }
        return (kept.count, found, misses)
    }

    @Test(arguments: [41, 42, 43] as [UInt64])
    func indexReturnsExactlyTheFencesBruteForceFinds(seed: UInt64) throws {
        let (checked, found, misses) = try Self.indexMismatches(seed: seed, antimeridian: false)
        #expect(checked > 200)
        #expect(found > 600, "many points should be near some fence")
        let missCount = misses.count
        #expect(missCount == 0, "first: \(misses.prefix(3).joined(separator: "; "))")
    }

    @Test(arguments: [51, 52] as [UInt64])
    func indexReturnsExactlyTheFencesBruteForceFindsForFencesAcrossTheAntimeridian(seed: UInt64) throws {
        let (checked, found, misses) = try Self.indexMismatches(seed: seed, antimeridian: true)
        #expect(checked > 100)
        #expect(found > 600)
        let missCount = misses.count
        #expect(missCount == 0, "first: \(misses.prefix(3).joined(separator: "; "))")
    }
}
