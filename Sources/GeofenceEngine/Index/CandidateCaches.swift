/// Each device's candidates, kept from one sample to the next: the entries of the cells it is
/// in, good while it stays in all of them and nothing in the index changes. A truck moves a few
/// metres between samples and stays in its cells for tens of samples, and with 100,000 fences
/// the cells are far from any cache; its own entries, read with its other state, are near.
struct CandidateCaches: Sendable {
    /// 28 bytes a device: the region in Float, rounded inward, so that a point rounded to Float
    /// inside it is certainly inside the region (rounding never reverses an order).
    struct Cache: Sendable {
        var minLat: Float = 0, maxLat: Float = 0, minLon: Float = 0, maxLon: Float = 0
        var start: UInt32 = 0
        var count: UInt32 = 0
        /// The index's version when collected; `.max` for none.
        var version: UInt32 = .max

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

    private(set) var caches: [Cache] = []
    private var pool: [FenceIndex.Entry] = []
    /// Entries no cache uses any more.
    private var garbage = 0

    mutating func addDevice() { caches.append(Cache()) }

    /// Forgets device `slot`'s candidates (a forgotten or reused slot, new groups).
    mutating func invalidate(_ slot: Int) {
        garbage += Int(caches[slot].count)
        caches[slot] = Cache()
    }

    /// Appends the candidates of `device` at the point, from its cache or collected afresh.
    @inline(__always)
    mutating func candidates(
        device: Int, lat: Double, lon: Double, index: FenceIndex, everyGroup: Bool, groups: [Int32], into result: inout [Int32]
    ) {
        var cache = caches[device]
        let latF = Float(lat), lonF = Float(lon)
        if cache.version != index.version || !cache.contains(lat: latF, lon: lonF) {
            garbage += Int(cache.count)
            let start = pool.count
            cache = Cache(index.collect(lat: lat, lon: lon, everyGroup: everyGroup, groups: groups, into: &pool))
            cache.start = UInt32(start)
            cache.count = UInt32(pool.count - start)
            cache.version = index.version
            caches[device] = cache
            if garbage > 4_096 && garbage * 2 > pool.count { compact() }
            cache = caches[device]
        }
        pool.withUnsafeBufferPointer { pool in
            for i in Int(cache.start)..<(Int(cache.start) + Int(cache.count)) where pool[i].contains(lat: latF, lon: lonF) {
                result.append(pool[i].slot)
            }
        }
    }

    /// Lays every cache's entries out again without the garbage.
    private mutating func compact() {
        var packed: [FenceIndex.Entry] = []
        packed.reserveCapacity(pool.count - garbage)
        for i in caches.indices {
            let run = Int(caches[i].start)..<(Int(caches[i].start) + Int(caches[i].count))
            caches[i].start = UInt32(packed.count)
            packed.append(contentsOf: pool[run])
        }
        pool = packed
        garbage = 0
    }
}
