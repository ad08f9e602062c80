import Testing

@testable import GeofenceEngine

/// `GeofenceEngine.countMemory` (docs/http.md "Memory"): what each part holds for the devices,
/// counted a slice at a time.
@Suite("Memory by part")
struct EngineMemoryTests {
    @Test func allocationsAreRoundedAsGlibcRoundsThem() {
        #expect(AllocatedBytes.chunk(0) == 0)
        #expect(AllocatedBytes.chunk(1) == 32)
        #expect(AllocatedBytes.chunk(24) == 32)
        #expect(AllocatedBytes.chunk(25) == 48)
        #expect(AllocatedBytes.array([Int]()) == 0)
        var ten = [Int]()
        ten.reserveCapacity(10)
        ten.append(1)
        // 32 bytes of header and 80 of elements (a capacity of at least 10), rounded up.
        #expect(AllocatedBytes.array(ten) == AllocatedBytes.chunk(32 + ten.capacity * 8))
        #expect(AllocatedBytes.array(ten) >= 128)
        // A mapped array is resident up to its last element: 32 + 10,000 bytes in pages of 4 KiB.
        var large = [UInt8]()
        large.reserveCapacity(4 << 20)
        large.append(contentsOf: repeatElement(0, count: 10_000))
        #expect(AllocatedBytes.array(large) == 12_288)
        #expect(AllocatedBytes.string("truck-7") == 0)
        #expect(AllocatedBytes.string(String(repeating: "x", count: 20)) == 64)
        #expect(AllocatedBytes.dictionary([Int: Int]()) == 0)
        #expect(AllocatedBytes.set(Set([1, 2, 3])) > 0)
    }

    static func count(_ engine: GeofenceEngine, slice: Int) -> EngineMemory {
        var count = EngineMemoryCount()
        var calls = 0
        while !count.isComplete {
            engine.countMemory(&count, limit: slice)
            calls += 1
        }
        #expect(calls <= engine.devices.ids.count / slice + 2)
        return count.memory
    }

    /// Far from the depot's fences, at random: a device outside everything.
    static func away(_ k: Int) -> Coordinate { destination(depot, bearing: Double(k % 360), meters: 5_000 + Double(k)) }

    @Test func aCountInSlicesIsTheCountInOneGo() throws {
        var h = try Harness([circle("yard", radius: 150, dwell: 60)])
        for k in 0..<2_500 {
            let device = k % 3 == 0 ? "a-device-id-longer-than-fifteen-bytes-\(k)" : "d\(k)"
            h.feed([sample(k % 2 == 0 ? depot : Self.away(k), t: T0)], device: device)
        }
        let whole = Self.count(h.engine, slice: 1_000_000)
        #expect(Self.count(h.engine, slice: 7) == whole)
        #expect(Self.count(h.engine, slice: 1_000) == whole)
        // Columns alone are over 100 bytes a device (ids, times, places, marks).
        #expect(whole.devices > 100 * 2_500)
        // Half the devices inside the yard: a region entry each.
        #expect(whole.regions > 24 * 1_250)
    }

    @Test func eachPartGrowsWithWhatItHolds() throws {
        var h = try Harness([circle("yard", radius: 150, dwell: 60)])
        let empty = Self.count(h.engine, slice: 100)
        #expect(empty.regions + empty.heldSamples < 1_000)

        // Outside everything, ids of 15 bytes or fewer: the devices part grows, nothing else does.
        for k in 0..<1_000 { h.feed([sample(Self.away(k), t: T0)], device: "d\(k)") }
        let outside = Self.count(h.engine, slice: 100)
        #expect(outside.devices - empty.devices > 100 * 1_000)
        #expect(outside.regions + outside.heldSamples < 1_000 + 16 * 1_000)

        // Longer ids take storage of their own: 96 bytes each at 40 bytes (32 of header, the bytes
        // and a zero, rounded up).
        var long = h
        for k in 0..<1_000 { long.feed([sample(Self.away(k), t: T0)], device: String(repeating: "x", count: 34) + "\(100_000 + k)") }
        let longIDs = Self.count(long.engine, slice: 100)
        #expect(longIDs.devices - outside.devices >= (100 + 96) * 1_000)

        // Inside the yard: a record with an entry each.
        for k in 0..<1_000 { h.feed([sample(depot, t: T0 + 1)], device: "d\(k)") }
        let inside = Self.count(h.engine, slice: 100)
        #expect(inside.regions - outside.regions >= 1_000 * (32 + 24))

        // A report after a gap: each device holds a sample for a backlog that may follow.
        for k in 0..<1_000 { h.feed([sample(depot, t: T0 + 600)], device: "d\(k)") }
        let held = Self.count(h.engine, slice: 100)
        #expect(held.heldSamples - inside.heldSamples >= 1_000 * 56)
    }

    /// One device that holds samples after a gap, inside one fence and nearing another (a pending
    /// change, boxed): its part of `heldSamples` is its history's place, its samples, each one's
    /// regions before it with their boxes, and the alerts each confirmed.
    @Test func aDevicesHeldSamplesAreItsSamplesTheirRegionsAndBoxes() throws {
        var h = try Harness([
            circle("yard", radius: 150, dwell: 6_000), circle("far", at: destination(depot, bearing: 0, meters: 400), radius: 150),
        ])
        h.feed([sample(depot, t: T0)], device: "d")
        let before = Self.count(h.engine, slice: 1)
        for k in 0..<6 {
            h.feed([sample(destination(depot, bearing: 0, meters: Double(k) * 60), t: T0 + 600 + Double(k))], device: "d")
        }
        let after = Self.count(h.engine, slice: 1)
        let slot = try #require(h.engine.devices.slot(of: "d"))
        let history = h.engine.histories[h.engine.devices.history[Int(slot)]]
        #expect(history.held.count > 2)
        #expect(history.held.contains { $0.before.contains { $0.boxBytes > 0 } })
        var expected = AllocatedBytes.array(history.held) + history.timesBytes + h.engine.histories.allocatedBytes
        for sample in history.held {
            expected += AllocatedBytes.array(sample.alerted) + AllocatedBytes.array(sample.before)
                + sample.before.reduce(0) { $0 + $1.boxBytes }
        }
        #expect(after.heldSamples - before.heldSamples == expected)
    }

    /// Forgotten devices leave their places to the next ones: the count walks them and ends.
    @Test func aCountAfterForgettingWalksTheFreedPlaces() throws {
        var h = try Harness([circle("yard", radius: 150, dwell: 60)])
        for k in 0..<100 { h.feed([sample(depot, t: T0)], device: "d\(k)") }
        let all = Self.count(h.engine, slice: 7)
        for k in 0..<50 { _ = h.engine.forgetDevice("d\(k)") }
        let half = Self.count(h.engine, slice: 7)
        #expect(half.regions < all.regions)
        for k in 100..<150 { h.feed([sample(Self.away(k), t: T0)], device: "d\(k)") }
        // New devices outside everything take the freed places: nothing grows.
        let reused = Self.count(h.engine, slice: 7)
        #expect(h.engine.deviceCount == 100)
        #expect(reused.devices == half.devices)
        #expect(reused.regions == half.regions)
    }
}
