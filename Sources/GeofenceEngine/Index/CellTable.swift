/// One grid level's cells: an open-addressing table from a cell's key to the run of entries the
/// cell holds, all runs in one array. A query costs one probe into the table and one read of a
/// contiguous run, with a multiplicative hash instead of SipHash: with 100,000 fences the grid is
/// far larger than the caches, and a dictionary of arrays cost a hash, three table reads and the
/// array's own buffer per level. In front of the table a bit per cell-hash (16 per occupied cell,
/// small enough to stay in cache) answers most queries of empty cells, which are most queries,
/// without touching the table at all.
struct CellTable: Sendable {
    struct Slot: Sendable {
        var key: UInt64
        var start: UInt32
        var count: UInt32
        var capacity: UInt32
    }

    private static let emptyKey = UInt64.max

    private(set) var slots: [Slot]
    private var shift: UInt64
    private var occupied = 0
    /// Bits set for the hashes of occupied cells: clear means empty for sure. Emptied cells keep
    /// their bit until the next rebuild.
    private var filter: [UInt64] = [0]
    private var filterShift: UInt64 = 64 - 6
    private var stale = 0
    private(set) var entries: [FenceIndex.Entry] = []
    /// Entries no cell uses any more (runs moved or emptied), reclaimed by `compact`.
    private var garbage = 0

    init() {
        slots = Array(repeating: Slot(key: Self.emptyKey, start: 0, count: 0, capacity: 0), count: 16)
        shift = 64 - 4
    }

    var isEmpty: Bool { occupied == 0 }

    @inline(__always)
    private func filterBit(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0xC2B2_AE3D_27D4_EB4F) >> filterShift)
    }

    /// False when the cell `key` certainly holds nothing.
    @inline(__always)
    func mayHold(_ key: UInt64) -> Bool {
        let bit = filterBit(key)
        return filter.withUnsafeBufferPointer { $0[bit >> 6] & (1 << UInt64(bit & 63)) != 0 }
    }

    private mutating func mark(_ key: UInt64) {
        let bit = filterBit(key)
        filter[bit >> 6] |= 1 << UInt64(bit & 63)
    }

    /// Sizes the filter to 16 bits per occupied cell and sets the bits of the cells held.
    private mutating func rebuildFilter() {
        var bits = 64
        var shift: UInt64 = 64 - 6
        while bits < occupied * 16 {
            bits *= 2
            shift -= 1
        }
        filter = Array(repeating: 0, count: bits / 64)
        filterShift = shift
        stale = 0
        for slot in slots where slot.key != Self.emptyKey { mark(slot.key) }
    }

    @inline(__always)
    private func home(_ key: UInt64) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The run of entries of the cell `key`, empty when it holds none.
    @inline(__always)
    func run(_ key: UInt64) -> Range<Int> {
        let home = home(key)
        return run(key, from: home, first: slots[home])
    }

    /// The slot where a search for `key` starts, and its content: a query of several levels reads
    /// every level's first slot before it follows any (`FenceIndex.collect`).
    @inline(__always)
    func firstSlot(_ key: UInt64) -> (index: Int, slot: Slot) {
        let index = home(key)
        return (index, slots.withUnsafeBufferPointer { $0[index] })
    }

    /// The run of entries of the cell `key`, going on from the search's first slot `first` at `index`.
    @inline(__always)
    func run(_ key: UInt64, from index: Int, first: Slot) -> Range<Int> {
        if first.key == key { return Int(first.start)..<Int(first.start + first.count) }
        if first.key == Self.emptyKey { return 0..<0 }
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var i = (index + 1) & mask
            while true {
                let slot = slots[i]
                if slot.key == key { return Int(slot.start)..<Int(slot.start + slot.count) }
                if slot.key == Self.emptyKey { return 0..<0 }
                i = (i + 1) & mask
            }
        }
    }

    mutating func append(_ entry: FenceIndex.Entry, to key: UInt64) {
        if (occupied + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var i = home(key)
        while slots[i].key != key && slots[i].key != Self.emptyKey { i = (i + 1) & mask }
        if slots[i].key == Self.emptyKey {
            slots[i] = Slot(key: key, start: UInt32(entries.count), count: 0, capacity: 2)
            entries.append(entry)
            entries.append(entry)
            occupied += 1
            if occupied * 16 > filter.count * 64 * 2 { rebuildFilter() } else { mark(key) }
        } else if slots[i].count == slots[i].capacity {
            // The run is full: move it to the end with room to double.
            let old = slots[i]
            let start = entries.count
            // Copied out first: appending a slice of the array itself would copy the whole array.
            let moved = Array(entries[Int(old.start)..<Int(old.start + old.count)])
            entries.append(contentsOf: moved)
            entries.append(contentsOf: repeatElement(entry, count: Int(old.capacity)))
            slots[i].start = UInt32(start)
            slots[i].capacity = old.capacity * 2
            garbage += Int(old.capacity)
        }
        entries[Int(slots[i].start + slots[i].count)] = entry
        slots[i].count += 1
    }

    /// Removes the entries of fence `slot` from the cell `key`.
    mutating func remove(fence slot: Int32, from key: UInt64) {
        let mask = slots.count - 1
        var i = home(key)
        while slots[i].key != key {
            if slots[i].key == Self.emptyKey { return }
            i = (i + 1) & mask
        }
        var position = Int(slots[i].start)
        while position < Int(slots[i].start + slots[i].count) {
            if entries[position].slot == slot {
                let last = Int(slots[i].start + slots[i].count) - 1
                entries[position] = entries[last]
                slots[i].count -= 1
            } else {
                position += 1
            }
        }
        if slots[i].count == 0 {
            garbage += Int(slots[i].capacity)
            delete(at: i)
            stale += 1
            if stale * 2 > occupied + 64 { rebuildFilter() }
        }
        if garbage > 4_096 && garbage * 2 > entries.count { compact() }
    }

    /// Backward-shift deletion: the entries after the hole that would not find their key past it
    /// move up, so that lookups never meet a tombstone.
    private mutating func delete(at index: Int) {
        let mask = slots.count - 1
        var hole = index
        var next = (hole + 1) & mask
        while slots[next].key != Self.emptyKey {
            if !staysAfterHole(hole, entryAt: next, home: home(slots[next].key)) {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Slot(key: Self.emptyKey, start: 0, count: 0, capacity: 0)
        occupied -= 1
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(key: Self.emptyKey, start: 0, count: 0, capacity: 0), count: old.count * 2)
        shift -= 1
        let mask = slots.count - 1
        for slot in old where slot.key != Self.emptyKey {
            var i = home(slot.key)
            while slots[i].key != Self.emptyKey { i = (i + 1) & mask }
            slots[i] = slot
        }
    }

    /// Lays every run out again without the garbage.
    private mutating func compact() {
        var packed: [FenceIndex.Entry] = []
        packed.reserveCapacity(entries.count - garbage)
        for i in slots.indices where slots[i].key != Self.emptyKey {
            let start = packed.count
            let run = Int(slots[i].start)..<Int(slots[i].start + slots[i].count)
            packed.append(contentsOf: entries[run])
            let room = max(2, Int(slots[i].count))
            packed.append(contentsOf: repeatElement(entries[run.lowerBound], count: room - Int(slots[i].count)))
            slots[i].start = UInt32(start)
            slots[i].capacity = UInt32(room)
        }
        entries = packed
        garbage = 0
    }
}
