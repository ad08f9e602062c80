import Testing

@testable import GeofenceEngine

/// The grid against the brute-force reference while fences come, move and go: nothing a
/// reach holds is missed, and nothing removed or moved away is still offered.
@Suite("Fence index")
struct FenceIndexTests {
    @Test(arguments: [61, 62] as [UInt64])
    func gridFollowsReplacementsAndRemovals(seed: UInt64) throws {
        let firstFences = try PropertyTests.randomFences(seed: seed, count: 300, nearAntimeridian: false).map { try makeFence($0) }
        let movedFences = try PropertyTests.randomFences(seed: seed &+ 100, count: 300, nearAntimeridian: true).map { try makeFence($0) }
        let first = firstFences.map(\.reach)
        let moved = movedFences.map(\.reach)
        var grid = FenceIndex()
        var reference = BruteForceIndex()
        var live: [Int32: BoundingBox] = [:]
        func place(_ slot: Int32, _ reach: BoundingBox) {
            grid.insert(slot, reach: reach)
            reference.insert(slot, reach: reach)
            live[slot] = reach
        }
        func drop(_ slot: Int32) {
            grid.remove(slot)
            reference.remove(slot)
            live[slot] = nil
        }
        for (slot, reach) in first.enumerated() { place(Int32(slot), reach) }
        // Every third fence moves (often to another level and across the antimeridian),
        // every fifth goes, and a few removed slots come back with a new shape.
        for slot in stride(from: 0, to: first.count, by: 3) { place(Int32(slot), moved[slot]) }
        for slot in stride(from: 0, to: first.count, by: 5) { drop(Int32(slot)) }
        for slot in stride(from: 0, to: first.count, by: 25) { place(Int32(slot), moved[slot + 1]) }
        drop(9_999)  // never inserted: changes nothing
        #expect(grid.count == live.count)

        let points = PropertyTests.randomPoints(seed: seed &+ 1, count: 2_000, near: firstFences)
            + PropertyTests.randomPoints(seed: seed &+ 2, count: 2_000, near: movedFences)
        var held = 0
        for point in points {
            var fromGrid: [Int32] = []
            var fromReference: [Int32] = []
            grid.candidates(lat: point.lat, lon: point.lon, into: &fromGrid)
            reference.candidates(lat: point.lat, lon: point.lon, into: &fromReference)
            held += fromReference.count
            let missed = Set(fromReference).subtracting(fromGrid)
            #expect(missed.isEmpty, "(\(point.lat), \(point.lon)): grid misses \(missed.sorted())")
            // Stale entries: a slot that is gone, or a reach the slot no longer has.
            for slot in Set(fromGrid) {
                let reach = try #require(live[slot], "(\(point.lat), \(point.lon)): removed slot \(slot) offered")
                let near = BoundingBox(
                    minLat: reach.minLat - 1e-4, maxLat: reach.maxLat + 1e-4,
                    minLon: reach.minLon - 1e-4, maxLon: reach.maxLon + 1e-4)
                #expect(near.contains(lat: point.lat, lon: point.lon), "slot \(slot) offered from an old reach")
            }
        }
        #expect(held > 500, "many points should be in some reach")
    }

    @Test
    func removingEverythingLeavesAnEmptyGrid() throws {
        let reaches = try PropertyTests.randomFences(seed: 7, count: 100, nearAntimeridian: true).map { try makeFence($0).reach }
        var grid = FenceIndex()
        for (slot, reach) in reaches.enumerated() { grid.insert(Int32(slot), reach: reach) }
        for slot in reaches.indices { grid.remove(Int32(slot)) }
        #expect(grid.count == 0)
        #expect(grid.occupiedLevels.isEmpty)
        #expect(grid.levels.allSatisfy { $0.cells.isEmpty })
    }
}
