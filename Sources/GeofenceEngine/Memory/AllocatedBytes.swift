/// What the heap gives an allocation, for counting memory by part (``EngineMemory``): glibc's
/// malloc hands out chunks of the request plus an 8-byte header, rounded up to 16 bytes, 32 at
/// least. A count from these is what the parts hold, not what the process's resident size shows:
/// the allocator's free space, the runtime and the libraries are not in it.
public enum AllocatedBytes {
    @inlinable
    public static func chunk(_ requested: Int) -> Int {
        requested <= 0 ? 0 : max(32, (requested + 8 + 15) & ~15)
    }

    /// Allocations this large get pages of their own (`fleetfence serve` fixes glibc's threshold
    /// here), which are resident only once written.
    public static let mappedFrom = 1 << 20

    /// An array's buffer: a 32-byte header (object header, count, capacity) and its capacity of
    /// elements; a mapped one up to its count, in pages, since the rest of an array grown by
    /// doubling is not written yet (at 50,000 devices the engine's columns counted 201 bytes a
    /// device by capacity, half of it never written). Empty arrays share one static buffer: nothing.
    /// Undercounted: a mapped array that shrank keeping its capacity (its written pages stay), and
    /// a large block glibc found free in the heap instead of mapping it.
    @inlinable
    public static func array<Element>(_ array: [Element]) -> Int {
        let capacity = array.capacity
        guard capacity > 0 else { return 0 }
        let allocated = 32 + capacity * MemoryLayout<Element>.stride
        guard allocated >= mappedFrom else { return chunk(allocated) }
        return (32 + array.count * MemoryLayout<Element>.stride + 4_095) & ~4_095
    }

    /// A string's storage of its own: none up to 15 UTF-8 bytes (held in the string itself), then
    /// a 32-byte header, the bytes and a terminating zero. A string sliced from a larger one, or
    /// bridged, is counted as if it were native.
    @inlinable
    public static func string(_ string: String) -> Int {
        let count = string.utf8.count
        return count <= 15 ? 0 : chunk(32 + count + 1)
    }

    /// A dictionary's or set's storage: a header of about 80 bytes, a bit a bucket, and a key and a
    /// value a bucket, the buckets a power of two kept at most three quarters full.
    @inlinable
    public static func hashTable(capacity: Int, keyStride: Int, valueStride: Int) -> Int {
        guard capacity > 0 else { return 0 }
        var buckets = 1
        while buckets * 3 / 4 < capacity { buckets *= 2 }
        return chunk(80 + (buckets + 63) / 64 * 8 + buckets * (keyStride + valueStride))
    }

    @inlinable
    public static func dictionary<Key, Value>(_ dictionary: [Key: Value]) -> Int {
        hashTable(capacity: dictionary.capacity, keyStride: MemoryLayout<Key>.stride, valueStride: MemoryLayout<Value>.stride)
    }

    @inlinable
    public static func set<Element>(_ set: Set<Element>) -> Int {
        hashTable(capacity: set.capacity, keyStride: MemoryLayout<Element>.stride, valueStride: 0)
    }
}
