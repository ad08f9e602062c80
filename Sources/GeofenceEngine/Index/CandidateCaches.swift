/// Each device's candidates, kept from one sample to the next: the entries of the cells it is
/// in, good while it stays in all of them and nothing in the index changes. A truck moves a few
/// metres between samples and stays in its cells for tens of samples, and with 100,000 fences
/// the cells are far from any cache; its own entries, read with its other state, are near. A
/// circle's entry keeps the circle, so that a sample outside evidence of it (most samples in its
/// reach) is told so without reading the fence at all.
///
/// Entries are kept only for a device that reported within `keepWithinSeconds` before: a device
/// seen once never needs them again, and one that reports every 30 s or more is in other cells at
/// most reports, while the collection a sample then costs comes that rarely. A million devices
/// each sending two positions a minute apart kept 235 MB of entries no sample read (heaptrack,
/// docs/performance.md). Keeping them from a device's second sample in a region instead cost
/// engine-bench a fifth of its rate at 100,000 fences (small cells, each collected twice). As it
/// is, a device's first region is collected twice (its first sample keeps none): engine-bench,
/// whose devices send 20 samples each, gave 2.95-3.15 M/s at 100,000 fences against 2.89-3.37
/// before (three runs each, alternating), and the same as before when first samples kept theirs.
/// The misses are out of line: inlined, they cost the hits another 5-10%.
struct CandidateCaches: Sendable {
    /// 56 bytes: an index entry and, for a circle, the circle (radius NaN for other shapes).
    struct Kept: Sendable {
        let entry: FenceIndex.Entry
        let circle: CircleGeometry

        init(_ entry: FenceIndex.Entry, _ probe: FenceProbe) {
            self.entry = entry
            if case let .circle(circle) = probe.geometry {
                self.circle = circle
            } else {
                circle = CircleGeometry(center: Coordinate(lat: 0, lon: 0), radius: .nan)
            }
        }
    }

    /// 32 bytes a device that keeps entries: the region in Float, rounded inward, so that a point
    /// rounded to Float inside it is certainly inside the region (rounding never reverses an order).
    struct Cache: Sendable {
        var minLat: Float = 0, maxLat: Float = 0, minLon: Float = 0, maxLon: Float = 0
        /// The entries' place in the pool; `.max` when none are kept.
        var start: UInt32 = .max
        var count: UInt32 = 0
        /// The index's version when collected; `.max` for none.
        var version: UInt32 = .max
        /// The device it is kept for, to find its place again when another cache takes it.
        var device: UInt32 = .max

        var isKept: Bool { start != .max }

        init() {}

        init(_ box: FenceIndex.CellBox) {
            minLat = Float(box.minLat).nextUp
            maxLat = Float(box.maxLat).nextDown
            minLon = Float(box.minLon).nextUp
            maxLon = Float(box.maxLon).nextDown
        }

        @inline(__always)
        func contains(lat: Float, lon: Float) -> Bool {
            lat >= minLat && lat <= maxLat && lon >= minLon && lon <= maxLon
        }
    }

    /// Each device's place in `kept`, `.max` for none: 4 bytes a device. Most devices of a large
    /// fleet report less often than `keepWithinSeconds` and keep nothing; a cache of 28 bytes for
    /// every device was 28 bytes a device of the million in fleetbench's scale phase, none used.
    private var places: [UInt32] = []
    /// A cache for each device that has kept entries since it was first seen (one whose entries
    /// were dropped keeps its place for the next ones), mostly in the order devices first kept one.
    private var kept: [Cache] = []
    private var pool: [Kept] = []
    private var collected: [FenceIndex.Entry] = []
    /// A sample's entries when they are not kept.
    private var unkept: [Kept] = []
    /// Entries no cache uses any more.
    private var garbage = 0

    /// A device that reported this recently keeps its entries.
    static let keepWithinSeconds = 10.0

    mutating func addDevice() { places.append(.max) }

    /// Device `slot`'s cache; an empty one when it keeps none.
    @inline(__always)
    func cache(of slot: Int) -> Cache {
        let place = places[slot]
        return place == .max ? Cache() : kept[Int(place)]
    }

    /// Every array's allocation (``AllocatedBytes``).
    var allocatedBytes: Int {
        AllocatedBytes.array(places) + AllocatedBytes.array(kept) + AllocatedBytes.array(pool) + AllocatedBytes.array(collected)
            + AllocatedBytes.array(unkept)
    }

    /// Drops device `slot`'s entries (new groups, a sample after a silence) and keeps its place for
    /// the next ones. Given up at each silence, a place was taken again at the end of `kept`, and
    /// the caches of a fleet whose devices fall silent now and then were read out of order
    /// (engine-bench with late samples, a tenth of the devices silent for 20 s: 15% fewer positions
    /// a second, three runs alternating).
    mutating func dropEntries(_ slot: Int) {
        let place = places[slot]
        guard place != .max, kept[Int(place)].isKept else { return }
        garbage += Int(kept[Int(place)].count)
        kept[Int(place)].start = .max
        kept[Int(place)].count = 0
    }

    /// Forgets device `slot`'s cache and place (the device forgotten). The last cache takes its
    /// place in `kept`.
    mutating func forget(_ slot: Int) {
        let place = places[slot]
        guard place != .max else { return }
        garbage += Int(kept[Int(place)].count)
        places[slot] = .max
        let last = kept.removeLast()
        if Int(place) < kept.count {
            kept[Int(place)] = last
            places[Int(last.device)] = place
        }
    }

    /// Appends the candidates of `device` at `point`, from its cache or collected afresh: every
    /// fence whose reach holds the point, but a circle only when the sample, with `margin`, is not
    /// outside evidence of it (the test the engine would make, on the same numbers). `keep`: the
    /// device reported within `keepWithinSeconds`, so entries collected now are kept.
    @inline(__always)
    mutating func candidates(
        device: Int, point: ProbePoint, margin: Double, index: FenceIndex, probes: [FenceProbe], everyGroup: Bool,
        groups: [Int32], keep: Bool, into result: inout [Int32]
    ) {
        var cache = cache(of: device)
        let latF = Float(point.lat), lonF = Float(point.lon)
        if cache.version != index.version || !cache.contains(lat: latF, lon: lonF) || !cache.isKept {
            guard keep else {
                scanUnkept(device: device, point: point, margin: margin, index: index, probes: probes,
                           everyGroup: everyGroup, groups: groups, into: &result)
                return
            }
            cache = refill(device: device, point: point, index: index, probes: probes, everyGroup: everyGroup, groups: groups)
        }
        pool.withUnsafeBufferPointer { pool in
            let run = UnsafeBufferPointer(rebasing: pool[Int(cache.start)..<(Int(cache.start) + Int(cache.count))])
            Self.scan(run, point: point, latF: latF, lonF: lonF, margin: margin, into: &result)
        }
    }

    /// Collects the device's entries afresh and keeps them.
    private mutating func refill(
        device: Int, point: ProbePoint, index: FenceIndex, probes: [FenceProbe], everyGroup: Bool, groups: [Int32]
    ) -> Cache {
        collected.removeAll(keepingCapacity: true)
        var cache = Cache(index.collect(lat: point.lat, lon: point.lon, everyGroup: everyGroup, groups: groups, into: &collected))
        cache.version = index.version
        let start = pool.count
        for entry in collected { pool.append(Kept(entry, probes[Int(entry.slot)])) }
        cache.start = UInt32(start)
        cache.count = UInt32(pool.count - start)
        cache.device = UInt32(device)
        // A device collecting again keeps its place: caches stay in the order devices first kept
        // them (but for those a forgotten device's place went to), which a fleet reporting in turn
        // reads in (engine-bench, 100,000 fences: moved to the end at every refill, 14-28% fewer
        // positions a second, three runs alternating).
        if places[device] == .max {
            places[device] = UInt32(kept.count)
            kept.append(cache)
        } else {
            garbage += Int(kept[Int(places[device])].count)
            kept[Int(places[device])] = cache
        }
        if garbage > 4_096 && garbage * 2 > pool.count { compact() }
        return kept[Int(places[device])]
    }

    /// Collects the device's entries afresh and scans them without keeping them.
    @inline(never)
    private mutating func scanUnkept(
        device: Int, point: ProbePoint, margin: Double, index: FenceIndex, probes: [FenceProbe], everyGroup: Bool,
        groups: [Int32], into result: inout [Int32]
    ) {
        dropEntries(device)
        collected.removeAll(keepingCapacity: true)
        _ = index.collect(lat: point.lat, lon: point.lon, everyGroup: everyGroup, groups: groups, into: &collected)
        unkept.removeAll(keepingCapacity: true)
        for entry in collected { unkept.append(Kept(entry, probes[Int(entry.slot)])) }
        unkept.withUnsafeBufferPointer {
            Self.scan($0, point: point, latF: Float(point.lat), lonF: Float(point.lon), margin: margin, into: &result)
        }
    }

    @inline(__always)
    private static func scan(
        _ entries: UnsafeBufferPointer<Kept>, point: ProbePoint, latF: Float, lonF: Float, margin: Double,
        into result: inout [Int32]
    ) {
        for kept in entries where kept.entry.contains(lat: latF, lon: lonF) {
            let circle = kept.circle
            if !circle.radius.isNaN {
                let distance = circle.signedDistance(latRadians: point.latRadians, cosLat: point.cosLat, lon: point.lon)
                if distance <= -min(margin, circle.radius / 2) { continue }
            }
            result.append(kept.entry.slot)
        }
    }

    /// Caches held, for tests.
    var keptCount: Int { kept.count }

    /// What must hold between the arrays, for tests: each place names a cache of its own device,
    /// each cache is some device's, runs lie in the pool without overlapping, and the pool is runs
    /// and garbage. Returns the first thing wrong, nil when none.
    func brokenInvariant() -> String? {
        var owners = [Int](repeating: -1, count: kept.count)
        for (device, place) in places.enumerated() where place != .max {
            guard Int(place) < kept.count else { return "device \(device)'s place \(place) is past the caches" }
            guard owners[Int(place)] < 0 else { return "devices \(owners[Int(place)]) and \(device) share cache \(place)" }
            guard kept[Int(place)].device == UInt32(device) else { return "cache \(place) names device \(kept[Int(place)].device), not \(device)" }
            owners[Int(place)] = device
        }
        if let orphan = owners.firstIndex(of: -1) { return "cache \(orphan) is no device's" }
        let runs = kept.filter { $0.isKept && $0.count > 0 }.map { Int($0.start)..<(Int($0.start) + Int($0.count)) }
            .sorted { $0.lowerBound < $1.lowerBound }
        if let last = runs.last, last.upperBound > pool.count { return "a run ends past the pool" }
        for (a, b) in zip(runs, runs.dropFirst()) where a.upperBound > b.lowerBound { return "runs \(a) and \(b) overlap" }
        if kept.contains(where: { !$0.isKept && $0.count != 0 }) { return "a cache without entries counts some" }
        let live = runs.reduce(0) { $0 + $1.count }
        return live + garbage == pool.count ? nil : "\(live) entries live and \(garbage) garbage, in a pool of \(pool.count)"
    }

    /// Lays every cache's entries out again without the garbage.
    private mutating func compact() {
        var packed: [Kept] = []
        packed.reserveCapacity(pool.count - garbage)
        for i in kept.indices where kept[i].isKept {
            let run = Int(kept[i].start)..<(Int(kept[i].start) + Int(kept[i].count))
            kept[i].start = UInt32(packed.count)
            packed.append(contentsOf: pool[run])
        }
        pool = packed
        garbage = 0
    }
}
