import Foundation
import Testing

@testable import GeofenceEngine
import SeededRandom

// MARK: - Time and places

/// Event time of the first sample in most tests (2027-01-15T08:00:00Z).
let T0: Double = 1_800_000_000

/// A depot in Walldorf: the centre of most fences.
let depot = Coordinate(lat: 49.2934, lon: 8.6414)

let metersPerDegree = Earth.meanRadiusMeters * .pi / 180

// MARK: - Spherical geometry, independent of the engine's code

/// The point `meters` away from `from` along the great circle with initial `bearing` (degrees).
func destination(_ from: Coordinate, bearing: Double, meters: Double) -> Coordinate {
    let delta = meters / Earth.meanRadiusMeters
    let theta = bearing * .pi / 180
    let phi1 = from.lat * .pi / 180
    let lambda1 = from.lon * .pi / 180
    let phi2 = asin(sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta))
    let lambda2 = lambda1 + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sin(phi2))
    return Coordinate(lat: phi2 * 180 / .pi, lon: normalizedLongitude(lambda2 * 180 / .pi))
}

/// Initial bearing of the great circle from `a` to `b`, degrees clockwise from north.
func initialBearing(from a: Coordinate, to b: Coordinate) -> Double {
    let phi1 = a.lat * .pi / 180, phi2 = b.lat * .pi / 180
    let dLambda = (b.lon - a.lon) * .pi / 180
    let y = sin(dLambda) * cos(phi2)
    let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)
    return atan2(y, x) * 180 / .pi
}

/// Spherical law of cosines: a second formula for great-circle distance (fine above a metre).
func lawOfCosinesDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
    let phi1 = a.lat * .pi / 180, phi2 = b.lat * .pi / 180
    let dLambda = (b.lon - a.lon) * .pi / 180
    let c = sin(phi1) * sin(phi2) + cos(phi1) * cos(phi2) * cos(dLambda)
    return acos(min(1, max(-1, c))) * Earth.meanRadiusMeters
}

func normalizedLongitude(_ lon: Double) -> Double {
    var l = (lon + 180).truncatingRemainder(dividingBy: 360)
    if l < 0 { l += 360 }
    return l - 180
}

/// A point `x` metres east and `y` metres north of `origin` in the local equirectangular plane
/// (the plane the engine measures polygons in, when `origin` is the polygon's centre).
func local(_ origin: Coordinate, x: Double, y: Double) -> Coordinate {
    let lat = origin.lat + y / metersPerDegree
    let lon = origin.lon + x / (metersPerDegree * cos(origin.lat * .pi / 180))
    return Coordinate(lat: lat, lon: normalizedLongitude(lon))
}

// MARK: - Fences

func circle(
    _ id: String, at center: Coordinate = depot, radius: Double, name: String? = nil,
    notify: Set<AlertEvent>? = nil, dwell: Double? = nil
) -> FenceDefinition {
    FenceDefinition(
        id: id, name: name, shape: .circle(center: center, radius: radius), notify: notify, dwellSeconds: dwell)
}

/// A polygon from local (x, y) metres around `center`. Not closed unless `closed`.
func polygon(
    _ id: String, around center: Coordinate = depot, _ points: [(Double, Double)], closed: Bool = false,
    notify: Set<AlertEvent>? = nil, dwell: Double? = nil
) -> FenceDefinition {
    var ring = points.map { local(center, x: $0.0, y: $0.1) }
    if closed { ring.append(ring[0]) }
    return FenceDefinition(id: id, shape: .polygon(ring), notify: notify, dwellSeconds: dwell)
}

/// An axis-aligned square of side `2 * half` metres centred on `center`.
func square(_ id: String, around center: Coordinate = depot, half: Double, notify: Set<AlertEvent>? = nil)
    -> FenceDefinition
{
    polygon(id, around: center, [(-half, -half), (half, -half), (half, half), (-half, half)], notify: notify)
}

/// A concave L, 200 m x 200 m with the north-east 100 m x 100 m quadrant cut out, in local metres
/// from its bounding box centre (so (50, 50) is in the notch, outside).
let lShape: [(Double, Double)] = [(-100, -100), (100, -100), (100, 0), (0, 0), (0, 100), (-100, 100)]

/// A fence as the engine would hold it under default settings.
func makeFence(_ definition: FenceDefinition, settings: GeofenceSettings = GeofenceSettings()) throws(FenceError)
    -> Fence
{
    try Fence(definition: definition, settings: settings)
}

// MARK: - Samples and paths

func sample(_ c: Coordinate, t: Double, acc: Double? = nil) -> PositionSample {
    PositionSample(lat: c.lat, lon: c.lon, timestamp: t, accuracy: acc)
}

/// A point at signed distance `d` from a circle's boundary (positive inside), on the ray from the
/// centre with `bearing`.
func atBoundary(of center: Coordinate = depot, radius: Double, d: Double, bearing: Double = 90) -> Coordinate {
    destination(center, bearing: bearing, meters: radius - d)
}

/// A device driving a great circle from `start` with initial `bearing` at `speed` m/s, reporting
/// every `interval` s from `time`.
func drive(
    from start: Coordinate, bearing: Double, speed: Double, interval: Double, from time: Double = T0,
    count: Int, acc: Double? = nil
) -> [PositionSample] {
    (0..<count).map { k in
        sample(destination(start, bearing: bearing, meters: speed * interval * Double(k)),
               t: time + interval * Double(k), acc: acc)
    }
}

/// A device driving straight through `center`: it starts `distance` metres before it, coming
/// from the direction opposite to `heading`.
func driveThrough(
    _ center: Coordinate = depot, heading: Double = 90, startingAt distance: Double, speed: Double,
    interval: Double, from time: Double = T0, count: Int
) -> [PositionSample] {
    let start = destination(center, bearing: heading + 180, meters: distance)
    return drive(from: start, bearing: initialBearing(from: start, to: center), speed: speed,
                 interval: interval, from: time, count: count)
}

/// Samples along the east-west line through `center`, `xs` metres east of it (negative: west),
/// one every `interval` seconds.
func eastWest(_ xs: [Double], around center: Coordinate = depot, from time: Double = T0, interval: Double = 5)
    -> [PositionSample]
{
    xs.enumerated().map { k, x in
        sample(local(center, x: x, y: 0), t: time + interval * Double(k))
    }
}

// MARK: - A harness that reads like the rules

struct Harness {
    var engine: GeofenceEngine
    var alerts: [Transition] = []
    var outcomes: [SampleOutcome] = []

    init(settings: GeofenceSettings = GeofenceSettings(), _ fences: [FenceDefinition]) throws {
        engine = GeofenceEngine(settings: settings)
        for fence in fences { try engine.setFence(fence) }
    }

    init(engine: GeofenceEngine) { self.engine = engine }

    /// Feeds samples of one device; the arrival (wall clock) is the event time plus `lag`.
    @discardableResult
    mutating func feed(_ samples: [PositionSample], device: String = "truck-7", lag: Double = 0.25)
        -> [Transition]
    {
        var out: [Transition] = []
        for s in samples {
            outcomes.append(engine.process(device: device, sample: s, arrival: s.timestamp + lag, into: &out))
        }
        alerts += out
        return out
    }

    @discardableResult
    mutating func feed(_ s: PositionSample, device: String = "truck-7", arrival: Double) -> [Transition] {
        var out: [Transition] = []
        outcomes.append(engine.process(device: device, sample: s, arrival: arrival, into: &out))
        alerts += out
        return out
    }

    @discardableResult
    mutating func tick(_ now: Double) -> [Transition] {
        var out: [Transition] = []
        engine.tick(now: now, into: &out)
        alerts += out
        return out
    }
}

func events(_ alerts: [Transition]) -> [String] {
    alerts.map { "\($0.event.rawValue) \($0.fenceID)" }
}

// MARK: - Seeded randomness

extension SeededRandom {
    mutating func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &self) }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ p: Double) -> Bool { uniform(0...1) < p }
    /// Log-uniform in `range`: as many 20 m fences as 20 km ones.
    mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        exp(uniform(log(range.lowerBound)...log(range.upperBound)))
    }
}

// MARK: - Shapes with holes, MultiPolygons, corridors

/// A ring of local (x, y) metres around `center`.
func ring(_ points: [(Double, Double)], around center: Coordinate = depot) -> [Coordinate] {
    points.map { local(center, x: $0.0, y: $0.1) }
}

/// An axis-aligned square ring of side `2 * half` centred at local (x, y).
func squareRing(half: Double, x: Double = 0, y: Double = 0, around center: Coordinate = depot) -> [Coordinate] {
    ring([(x - half, y - half), (x + half, y - half), (x + half, y + half), (x - half, y + half)], around: center)
}

/// A 400 m square with a 100 m square hole in its middle.
func squareWithHole(_ id: String, around center: Coordinate = depot) -> FenceDefinition {
    FenceDefinition(id: id, shape: .polygon(squareRing(half: 200, around: center), holes: [squareRing(half: 50, around: center)]))
}

/// A corridor along the east-west line through `center`, from `west` to `east` metres.
func corridor(_ id: String, around center: Coordinate = depot, west: Double = -1_000, east: Double = 1_000, buffer: Double = 50)
    -> FenceDefinition
{
    FenceDefinition(id: id, shape: .corridor(line: ring([(west, 0), (0, 0), (east, 0)], around: center), bufferMeters: buffer))
}

// MARK: - Fleet rules

extension FenceDefinition {
    /// The same definition for `devices` only.
    func only(_ devices: [String]) -> FenceDefinition {
        var copy = self
        copy.devices = devices
        return copy
    }
}

/// A sample at local (x, y) metres from the depot.
func at(_ x: Double, _ y: Double = 0, t: Double, acc: Double? = nil, speed: Double? = nil) -> PositionSample {
    let c = local(depot, x: x, y: y)
    return PositionSample(lat: c.lat, lon: c.lon, timestamp: t, accuracy: acc, speed: speed)
}
