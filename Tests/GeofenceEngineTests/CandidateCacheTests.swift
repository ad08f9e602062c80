import Foundation
import Testing

@testable import GeofenceEngine
import SeededRandom

/// A device's kept candidates are always what the index would hand out afresh (less the circles
/// the sample is outside evidence of): while it walks through cells, across the antimeridian, and
/// while fences come and go and audiences change.
@Suite("Candidate caches")
struct CandidateCacheTests {
    @Test(arguments: [91, 92] as [UInt64])
    func keptCandidatesAreAlwaysTheIndexsAnswer(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let near = PropertyTests.randomFences(seed: seed, count: 150, nearAntimeridian: false)
        let across = PropertyTests.randomFences(seed: seed &+ 7, count: 150, nearAntimeridian: true)
        let fences = try (near + across).map { try makeFence($0) }
        let reaches = fences.map(\.reach)
        let probes = fences.map { FenceProbe($0) }
        let groups: [Int32] = [0, 3, 5]
        var index = FenceIndex()
        var caches = CandidateCaches()
        let walkers = 40
        for _ in 0..<walkers { caches.addDevice() }
        // Walkers start inside fences' reaches (a third of them across the antimeridian).
        var positions = (0..<walkers).map { k in
            let reach = reaches[k % 3 == 0 ? 150 + k : k]
            let lon = reach.coversAllLongitudes ? rng.uniform(-180...180) : normalizedLongitude((reach.minLon + reach.maxLon) / 2)
            return Coordinate(lat: (reach.minLat + reach.maxLat) / 2, lon: lon)
        }
        var held = Set<Int32>()
        for slot in reaches.indices {
            index.insert(Int32(slot), reach: reaches[slot], group: groups.randomElement(using: &rng)!)
            held.insert(Int32(slot))
        }
        var compared = 0
        var (keptSteps, unkeptSteps) = (0, 0)
        for step in 0..<3_000 {
            // Every so often a fence comes or goes, for everyone or for a group.
            if rng.chance(0.05) {
                let slot = Int32(rng.int(0...(reaches.count - 1)))
                if held.contains(slot) {
                    index.remove(slot)
                    held.remove(slot)
                } else {
                    index.insert(slot, reach: reaches[Int(slot)], group: groups.randomElement(using: &rng)!)
                    held.insert(slot)
                }
            }
            let device = step % walkers
            positions[device] = destination(positions[device], bearing: rng.uniform(0...360), meters: rng.logUniform(1...500))
            let p = positions[device]
            let deviceGroups: [Int32] = device % 3 == 0 ? [] : [3]
            let margin = rng.uniform(5...60)
            var kept: [Int32] = []
            caches.candidates(
                device: device, point: ProbePoint(lat: p.lat, lon: p.lon), margin: margin, index: index, probes: probes,
                everyGroup: false, groups: deviceGroups, keep: rng.chance(0.7), into: &kept)
            var fresh: [Int32] = []
            index.candidates(lat: p.lat, lon: p.lon, groups: deviceGroups, into: &fresh)
            // Circles a sample is outside evidence of are left out, as the engine would leave them.
            fresh.removeAll { slot in
                let fence = fences[Int(slot)]
                guard case .circle = fence.definition.shape else { return false }
                return fence.signedDistance(to: p) <= -min(margin, fence.marginCap)
            }
            #expect(kept.sorted() == fresh.sorted(), "step \(step) at (\(p.lat), \(p.lon))")
            // A device reading another's cache would mostly find it outside its region and
            // collect afresh, the answer still right: the arrays are checked themselves.
            if let broken = caches.brokenInvariant() { Issue.record("step \(step): \(broken)") }
            compared += fresh.count
            if caches.cache(of: device).isKept { keptSteps += 1 } else { unkeptSteps += 1 }
            // A device's entries dropped (new groups), and a slot forgotten and given to a new
            // device: the last cache moves into its place.
            if step % 500 == 0 { caches.dropEntries(rng.int(0...(walkers - 1))) }
            if step % 700 == 0 { caches.forget(rng.int(0...(walkers - 1))) }
        }
        #expect(compared > 300, "the walkers should meet fences")
        // Both ways of answering were compared: a first sample in a region and a kept cache.
        #expect(keptSteps > 100 && unkeptSteps > 100, "kept \(keptSteps), first \(unkeptSteps)")
    }

    /// Entries are kept only for a device that reported recently (`keep`), and used while it
    /// stays in their region.
    @Test func entriesAreKeptForADeviceThatReportedRecently() throws {
        let fence = try makeFence(FenceDefinition(id: "depot", shape: .circle(center: Coordinate(lat: 49.3, lon: 8.6), radius: 200)))
        var index = FenceIndex()
        index.insert(0, reach: fence.reach)
        var caches = CandidateCaches()
        caches.addDevice()
        func candidates(_ lat: Double, _ lon: Double, keep: Bool) -> [Int32] {
            var result: [Int32] = []
            caches.candidates(
                device: 0, point: ProbePoint(lat: lat, lon: lon), margin: 10, index: index, probes: [FenceProbe(fence)],
                everyGroup: true, groups: [], keep: keep, into: &result)
            return result
        }
        #expect(candidates(49.30001, 8.60002, keep: false) == [0])
        #expect(!caches.cache(of: 0).isKept)
        #expect(candidates(49.30001, 8.60001, keep: true) == [0])
        #expect(caches.cache(of: 0).isKept && caches.cache(of: 0).count == 1)
        // Kept while the device stays in their region, however long it was silent.
        #expect(candidates(49.30002, 8.60002, keep: false) == [0])
        #expect(caches.cache(of: 0).isKept)
        // Elsewhere after a long silence: nothing kept.
        #expect(candidates(49.5, 8.9, keep: false) == [])
        #expect(!caches.cache(of: 0).isKept)
    }

    /// A forgotten device's cache and entries go with it, not when its slot is given to another.
    @Test func aForgottenDeviceTakesItsCacheAlong() throws {
        var engine = GeofenceEngine()
        try engine.setFence(FenceDefinition(id: "depot", shape: .circle(center: Coordinate(lat: 49.3, lon: 8.6), radius: 200)))
        var transitions: [Transition] = []
        for (k, device) in ["a", "b", "c"].enumerated() {
            for t in 0..<3 {
                let sample = PositionSample(lat: 49.3 + Double(k) * 0.001, lon: 8.6, timestamp: 100 + Double(t), accuracy: 5)
                engine.process(device: device, sample: sample, arrival: 100 + Double(t), into: &transitions)
            }
        }
        #expect(engine.candidateCaches.keptCount == 3)
        _ = engine.forgetDevice("a")
        #expect(engine.candidateCaches.keptCount == 2)
        #expect(engine.candidateCaches.brokenInvariant() == nil)
        // The others go on from their caches.
        let sample = PositionSample(lat: 49.302, lon: 8.6, timestamp: 103, accuracy: 5)
        #expect(engine.process(device: "c", sample: sample, arrival: 103, into: &transitions).status == .accepted)
        #expect(engine.candidateCaches.keptCount == 2)
        #expect(engine.candidateCaches.brokenInvariant() == nil)
    }
}
