/// Finds an id's place in a table that keeps its ids itself (the engine's `DeviceTable`, the read
/// side's device views). A bucket is 8 bytes, the place and 32 bits of the id's hash, where a
/// `[ExactID: Int32]` keeps the id again: 20 bytes. With a million devices (2^21 buckets) that
/// is 16.8 MB against 42 MB, in each of the two tables (heaptrack, fleetbench's scale phase).
/// The price is a read of the table's id on a hit: a million lookups of a million ids in random
/// order took 360-420 ns each against a dictionary's 240-350 (100,000: 250-300 against 180-230;
/// 10,000: the same), a micro-benchmark not kept, about 1% of what a position costs the service.
///
/// Open addressing with linear probing, at most three quarters full, and backward-shift deletion,
/// so that a lookup never meets a tombstone. The hash is Swift's `Hasher`, seeded per process:
/// device ids come from the network, and a fixed hash would let a publisher choose colliding ones.
/// The stored bits give the home bucket again when the table grows, without hashing the ids.
public struct IDIndex: Sendable {
    private struct Bucket: Sendable {
        /// -1: empty.
        var slot: Int32
        var hash: UInt32
    }

    private var buckets: [Bucket]
    /// 32 minus log2 of the bucket count: a hash's top bits are its home.
    private var shift: UInt32
    public private(set) var count = 0

    /// The buckets' allocation (``AllocatedBytes``).
    public var allocatedBytes: Int { AllocatedBytes.array(buckets) }

    public init() {
        buckets = Array(repeating: Bucket(slot: -1, hash: 0), count: 16)
        shift = 32 - 4
    }

    /// The place of `id`; `holds(place)` tells whether the table's id at a place is `id`.
    @inline(__always)
    public func slot(of id: ExactID, where holds: (Int32) -> Bool) -> Int32? {
        let hash = Self.hash(id)
        return buckets.withUnsafeBufferPointer { buckets in
            let mask = buckets.count - 1
            var i = home(hash)
            while true {
                let bucket = buckets[i]
                if bucket.slot < 0 { return nil }
                if bucket.hash == hash && holds(bucket.slot) { return bucket.slot }
                i = (i + 1) & mask
            }
        }
    }

    /// Records `id` at `slot`; `id` must not be held.
    public mutating func insert(_ id: ExactID, at slot: Int32) {
        // A negative place marks an empty bucket.
        precondition(slot >= 0, "IDIndex: a place is never negative")
        if (count + 1) * 4 > buckets.count * 3 { resize(to: buckets.count * 2) }
        place(Bucket(slot: slot, hash: Self.hash(id)))
        count += 1
    }

    /// Forgets `id`; returns its place, `nil` when it was not held.
    @discardableResult
    public mutating func remove(_ id: ExactID, where holds: (Int32) -> Bool) -> Int32? {
        let hash = Self.hash(id)
        let mask = buckets.count - 1
        var i = home(hash)
        while buckets[i].slot >= 0 {
            if buckets[i].hash == hash && holds(buckets[i].slot) {
                let slot = buckets[i].slot
                delete(at: i)
                count -= 1
                return slot
            }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Moves the id at place `from` to place `to` (a table that fills a hole with its last row).
    public mutating func move(_ id: ExactID, from: Int32, to: Int32) {
        let hash = Self.hash(id)
        let mask = buckets.count - 1
        var i = home(hash)
        while buckets[i].slot >= 0 {
            if buckets[i].slot == from {
                buckets[i].slot = to
                return
            }
            i = (i + 1) & mask
        }
        assertionFailure("IDIndex: \(id) is not at place \(from)")
    }

    @inline(__always)
    static func hash(_ id: ExactID) -> UInt32 {
        var hasher = Hasher()
        id.hash(into: &hasher)
        return UInt32(truncatingIfNeeded: UInt(bitPattern: hasher.finalize()))
    }

    @inline(__always)
    private func home(_ hash: UInt32) -> Int {
        // From 28 (16 buckets) down: never 32, so the masking shift is exact.
        Int(hash &>> shift)
    }

    private mutating func place(_ bucket: Bucket) {
        let mask = buckets.count - 1
        var i = home(bucket.hash)
        while buckets[i].slot >= 0 { i = (i + 1) & mask }
        buckets[i] = bucket
    }

    private mutating func resize(to size: Int) {
        let old = buckets
        buckets = Array(repeating: Bucket(slot: -1, hash: 0), count: size)
        shift = 32 - UInt32(size.trailingZeroBitCount)
        for bucket in old where bucket.slot >= 0 { place(bucket) }
    }

    /// Backward-shift deletion: the buckets after the hole that would not be found past it move up.
    private mutating func delete(at index: Int) {
        let mask = buckets.count - 1
        var hole = index
        var next = (hole + 1) & mask
        while buckets[next].slot >= 0 {
            if !staysAfterHole(hole, entryAt: next, home: home(buckets[next].hash)) {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = Bucket(slot: -1, hash: 0)
    }
}
