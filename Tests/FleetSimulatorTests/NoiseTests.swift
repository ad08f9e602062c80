import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator
import SeededRandom

@Suite("Seeded randomness and noise")
struct NoiseTests {
    @Test func seededRandomIsReproducibleAndStreamsDiffer() {
        var a = SeededRandom(seed: 42), b = SeededRandom(seed: 42)
        var c = SeededRandom(seed: 42, stream: 1), d = SeededRandom(seed: 43)
        let xs = (0..<100).map { _ in a.next() }
        #expect(xs == (0..<100).map { _ in b.next() })
        #expect(xs != (0..<100).map { _ in c.next() })
        #expect(xs != (0..<100).map { _ in d.next() })
        var zero = SeededRandom(seed: 0)
        #expect(Set((0..<100).map { _ in zero.next() }).count == 100)
    }

    @Test func uniformValuesCoverTheUnitInterval() {
        var random = SeededRandom(seed: 7)
        let values = (0..<100_000).map { _ in random.nextUnit() }
        #expect(values.allSatisfy { $0 >= 0 && $0 < 1 })
        let mean = values.reduce(0, +) / Double(values.count)
        #expect(abs(mean - 0.5) < 0.01)
    }

    @Test func gaussianHasMeanZeroAndUnitDeviation() {
        var noise = GaussianNoise(random: SeededRandom(seed: 1))
        let n = 200_000
        let values = (0..<n).map { _ in noise.next() }
        let mean = values.reduce(0, +) / Double(n)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(n - 1)
        #expect(abs(mean) < 0.01)
        #expect(abs(variance.squareRoot() - 1) < 0.01)
        // About 68% within one deviation, 95% within two.
        let within1 = Double(values.filter { abs($0) < 1 }.count) / Double(n)
        let within2 = Double(values.filter { abs($0) < 2 }.count) / Double(n)
        #expect(abs(within1 - 0.6827) < 0.01)
        #expect(abs(within2 - 0.9545) < 0.005)
    }

    @Test func publishedPositionsScatterByTheNoise() {
        var options = FleetOptions()
        options.trucks = 1
        options.noise = 8
        options.interval = 1
        let c = Fixtures.point(north: 0, east: 0)
        let still = GPXRoute(name: "still", points: [RoutePoint(lat: c.lat, lon: c.lon)], kind: .waypoints)
        options.loop = true
        options.duration = 20_000
        let plan = FleetPlan(routes: [still], options: options)
        var sampler = TruckSampler(plan: plan, truck: 0)
        var norths: [Double] = [], easts: [Double] = []
        while let sample = sampler.next() {
            #expect(sample.accuracy == 8)
            #expect(sample.truth.coordinate == c)
            norths.append((sample.observed.lat - c.lat) * Geodesy.metersPerDegreeLat)
            easts.append((sample.observed.lon - c.lon) * Geodesy.metersPerDegreeLat * cos(c.lat * .pi / 180))
        }
        #expect(norths.count > 19_000)
        for axis in [norths, easts] {
            let mean = axis.reduce(0, +) / Double(axis.count)
            let sd = (axis.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(axis.count - 1)).squareRoot()
            #expect(abs(mean) < 0.2)
            #expect(abs(sd - 8) < 0.2)
        }
    }

    @Test func noNoiseMeansTheTruthAndAGoodFix() {
        var options = FleetOptions()
        options.trucks = 1
        let plan = FleetPlan(routes: [Fixtures.straightRoute([0, 100])], options: options)
        var sampler = TruckSampler(plan: plan, truck: 0)
        while let sample = sampler.next() {
            #expect(sample.observed == sample.truth.coordinate)
            #expect(sample.accuracy == 5)
        }
    }
}
