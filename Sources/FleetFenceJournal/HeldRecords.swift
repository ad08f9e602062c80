import GeofenceEngine

/// The device records and clocks the journal's writer holds back (``JournalChanges/heldDevices``,
/// ``JournalChanges/heldClocks``), in the order they came, each batch in id order:
/// the journal stores device rows by id, so a chunk of a batch that is most of the fleet (a fold
/// of the clock log, the clocks of every device that reported since the last one) fills a few
/// pages of the WAL rather than a page per row. A device held again keeps its place with its newer record or clock: taken
/// from the front, everything held reaches the journal within `count / chunk` deliveries, however
/// often devices change meanwhile. (Taken in a dictionary's order, the same few hundred devices
/// were written over and over under load, and the rest waited for good.)
struct HeldRecords {
    /// What is held of one device. A record holds the latest sample too, so a newer record
    /// replaces both; a newer clock replaces the clock only, and both are written.
    private struct Held {
        var record: DeviceRecord?
        var clock: DeviceClock?
    }

    /// One chunk taken: the records and the clocks of its devices, each in the order held.
    struct Chunk {
        var records: [DeviceRecord] = []
        var clocks: [DeviceClock] = []
        var isEmpty: Bool { records.isEmpty && clocks.isEmpty }
    }

    /// By the id's bytes: two canonically equivalent ids are two devices (docs/operations.md "Limits and failures").
    private var held: [ExactID: Held] = [:]
    /// Devices in the order they came; `next` is the first not yet taken. A dropped device's
    /// place stays behind and is skipped; every held device has a place at `next` or after.
    private var order: [ExactID] = []
    private var next = 0
    /// Places dropped from the front of `order` since the start, so that `taken` and `end` count
    /// from the start: a place noted now stays comparable after `order` is compacted.
    private var dropped = 0
    /// What the held records' arrays take, kept as they come and go (``allocatedBytes``).
    private(set) var recordBytes = 0

    /// Places given so far: a device held from now on is at this place or after it.
    var end: Int { dropped + order.count }
    /// Places taken (or skipped) so far: once it reaches a noted `end`, everything held before
    /// that moment has been taken, or replaced by a newer record written meanwhile. With nothing
    /// held, every place is passed (the places left are of devices dropped since).
    var taken: Int { held.isEmpty ? end : dropped + next }

    /// Devices held.
    var count: Int { held.count }
    var isEmpty: Bool { held.isEmpty }

    /// The heap these hold (``AllocatedBytes``): the table, the order and the records' regions,
    /// made for the record. Ids, fence ids and tour progress are the engine's, shared until it
    /// changes them, and not counted again.
    var allocatedBytes: Int {
        AllocatedBytes.dictionary(held) + AllocatedBytes.array(order) + recordBytes
    }

    private static func bytes(of record: DeviceRecord?) -> Int {
        record.map { AllocatedBytes.array($0.regions) } ?? 0
    }

    mutating func hold(_ record: DeviceRecord) {
        let key = ExactID(record.device)
        recordBytes += Self.bytes(of: record)
        if let replaced = held.updateValue(Held(record: record), forKey: key) {
            recordBytes -= Self.bytes(of: replaced.record)
        } else {
            order.append(key)
        }
    }

    mutating func hold(_ clock: DeviceClock) {
        let key = ExactID(clock.device)
        if held[key] == nil { order.append(key) }
        held[key, default: Held()].clock = clock
    }

    /// A newer record of `device` is being written: nothing held of it may follow it.
    mutating func drop(_ device: String) {
        recordBytes -= Self.bytes(of: held.removeValue(forKey: ExactID(device))?.record)
    }

    /// What is held of the `limit` devices held longest, oldest first.
    mutating func take(_ limit: Int) -> Chunk {
        var chunk = Chunk()
        var devices = 0
        while devices < limit, next < order.count {
            if let taken = held.removeValue(forKey: order[next]) {
                devices += 1
                recordBytes -= Self.bytes(of: taken.record)
                if let record = taken.record { chunk.records.append(record) }
                if let clock = taken.clock { chunk.clocks.append(clock) }
            }
            next += 1
        }
        if held.isEmpty {
            assert(recordBytes == 0, "HeldRecords: \(recordBytes) bytes counted with nothing held")
            recordBytes = 0
            // Not keeping capacity: after a flood of first sightings these would stay large.
            held = [:]
            dropped += order.count
            order = []
            next = 0
        } else if next >= 4_096, next * 2 >= order.count {
            order.removeFirst(next)
            dropped += next
            next = 0
        }
        return chunk
    }
}
