// Positions per second through the geofence engine, and bytes of state per device.
// A benchmark, not a test: it prints figures and asserts nothing. Run in release:
//   swift run -c release engine-bench
import Foundation
import GeofenceEngine
import SeededRandom

typealias Area = (minLat: Double, maxLat: Double, minLon: Double, maxLon: Double)

/// The fleet's area grows with the fence count at one fence per 4 km² (a dense logistics
/// region), so every run has the same number of fences near each truck and the figures show
/// what the fence count itself costs.
func area(forFences count: Int) -> Area {
    let sideKm = (Double(count) * 4).squareRoot()
    let halfLat = sideKm / 2 / 111.195
    let halfLon = halfLat / cos(49 * Double.pi / 180)
    return (49 - halfLat, 49 + halfLat, 8.6 - halfLon, 8.6 + halfLon)
}

/// Resident memory, from /proc (Linux); 0 elsewhere.
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * 4096 : 0
}

func makeFences(count: Int, area: Area, rng: inout SeededRandom) -> [FenceDefinition] {
    (0..<count).map { i in
        let lat = Double.random(in: area.minLat...area.maxLat, using: &rng)
        let lon = Double.random(in: area.minLon...area.maxLon, using: &rng)
        if i % 10 == 9 {
            // About 10% polygons: irregular 8-gons of 100 to 600 m.
            let size = Double.random(in: 100...600, using: &rng)
            let ring = (0..<8).map { k -> Coordinate in
                let angle = Double(k) / 8 * 2 * .pi
                let r = size * Double.random(in: 0.6...1.0, using: &rng) / 111_195
                return Coordinate(lat: lat + r * sin(angle), lon: lon + r * cos(angle) / cos(lat * .pi / 180))
            }
            return FenceDefinition(id: "f\(i)", shape: .polygon(ring))
        }
        return FenceDefinition(
            id: "f\(i)", shape: .circle(center: Coordinate(lat: lat, lon: lon), radius: .random(in: 50...800, using: &rng)))
    }
}

/// Trucks on random walks at about 15 m/s, one sample per second each, round robin.
func makeSamples(devices: Int, perDevice: Int, area: Area, rng: inout SeededRandom) -> [PositionSample] {
    var lat = (0..<devices).map { _ in Double.random(in: area.minLat...area.maxLat, using: &rng) }
    var lon = (0..<devices).map { _ in Double.random(in: area.minLon...area.maxLon, using: &rng) }
    var heading = (0..<devices).map { _ in Double.random(in: 0..<(2 * .pi), using: &rng) }
    var samples: [PositionSample] = []
    samples.reserveCapacity(devices * perDevice)
    for step in 0..<perDevice {
        for d in 0..<devices {
            heading[d] += Double.random(in: -0.2...0.2, using: &rng)
            lat[d] += 15 * cos(heading[d]) / 111_195
            lon[d] += 15 * sin(heading[d]) / (111_195 * cos(lat[d] * .pi / 180))
            samples.append(PositionSample(lat: lat[d], lon: lon[d], timestamp: 1_795_600_000 + Double(step), accuracy: 8))
        }
    }
    return samples
}

let deviceCount = 100_000
let samplesPerDevice = 20
print("engine-bench: \(deviceCount) devices x \(samplesPerDevice) samples, circles + 10% polygons, one fence per 4 km²")
print("fences   | build s | insert s | positions/s  | alerts  | us/position | state B/device")
var rates: [Int: Double] = [:]
var buildSeconds: [Int: Double] = [:]
var insertSeconds: [Int: Double] = [:]
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}
for fenceCount in [1_000, 10_000, 100_000] {
    var rng = SeededRandom(seed: 42)
    let area = area(forFences: fenceCount)
    let definitions = makeFences(count: fenceCount, area: area, rng: &rng)
    let samples = makeSamples(devices: deviceCount, perDevice: samplesPerDevice, area: area, rng: &rng)
    var engine = GeofenceEngine()
    // Set-up in its two parts: building (validation, geometry; the service does it on every core
    // before it takes the lock) and inserting into the engine's tables and index (under the lock).
    let buildStart = ContinuousClock.now
    let fences = definitions.map { try! Fence(definition: $0, settings: engine.settings) }
    buildSeconds[fenceCount] = seconds(ContinuousClock.now - buildStart)
    let insertStart = ContinuousClock.now
    for fence in fences { try! engine.setFence(fence) }
    insertSeconds[fenceCount] = seconds(ContinuousClock.now - insertStart)
    let heapBefore = residentBytes()
    let handles = (0..<deviceCount).map { engine.handle(for: "truck-\($0)") }
    var transitions: [Transition] = []
    transitions.reserveCapacity(1024)
    var alerts = 0
    let clock = ContinuousClock()
    let start = clock.now
    for (i, sample) in samples.enumerated() {
        engine.process(handles[i % deviceCount], sample: sample, arrival: sample.timestamp, into: &transitions)
        alerts += transitions.count
        transitions.removeAll(keepingCapacity: true)
    }
    let heapAfter = residentBytes()
    let rate = Double(samples.count) / seconds(clock.now - start)
    rates[fenceCount] = rate
    let perDevice = Double(heapAfter - heapBefore) / Double(deviceCount)
    print(String(
        format: "%-8d | %7.3f | %8.3f | %12.0f | %7d | %11.3f | %6.0f", fenceCount, buildSeconds[fenceCount]!,
        insertSeconds[fenceCount]!, rate, alerts, 1e6 / rate, perDevice))
    withExtendedLifetime(engine) {}
}
let slowdown = rates[1_000]! / rates[100_000]!
print(String(format: "slowdown 100k vs 1k fences: %.2fx", slowdown))
print(String(format: "RESULT engine_pps_1k=%.0f engine_pps_10k=%.0f engine_pps_100k=%.0f slowdown_100k_vs_1k=%.2f build_s_100k=%.3f insert_s_100k=%.3f",
             rates[1_000]!, rates[10_000]!, rates[100_000]!, slowdown, buildSeconds[100_000]!, insertSeconds[100_000]!))
