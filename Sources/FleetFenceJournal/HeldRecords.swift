import GeofenceEngine

/// The device records the journal's writer holds back (``JournalPipeline/Step/heldDevices``),
/// in the order they came, each batch sorted by id by the writer: the journal stores device rows
/// by id, so a chunk of a batch that is most of the fleet (the latest-sample times of every
/// device reporting each second) fills a few pages of the WAL rather than a page per row. A
/// device held again keeps its place with its newer record: taken from
/// the front, every record reaches the journal within `count / chunk` deliveries, however often
/// devices change meanwhile. (Taken in a dictionary's order, the same few hundred devices were
/// written over and over under load, and the rest waited for good.)
struct HeldRecords {
    /// By the id's bytes: two canonically equivalent ids are two devices (docs/operations.md "Limits and failures").
    private var records: [ExactID: DeviceRecord] = [:]
    /// Devices in the order they came; `next` is the first not yet taken. A dropped device's
    /// place stays behind and is skipped; every held device has a place at `next` or after.
    private var order: [ExactID] = []
    private var next = 0

    var count: Int { records.count }
    var isEmpty: Bool { records.isEmpty }

    mutating func hold(_ record: DeviceRecord) {
        let key = ExactID(record.device)
        if records.updateValue(record, forKey: key) == nil { order.append(key) }
    }

    /// A newer record of `device` is being written: the held one must never follow it.
    mutating func drop(_ device: String) {
        records.removeValue(forKey: ExactID(device))
    }

    /// The `limit` longest held records, oldest first.
    mutating func take(_ limit: Int) -> [DeviceRecord] {
        var chunk: [DeviceRecord] = []
        chunk.reserveCapacity(min(limit, records.count))
        while chunk.count < limit, next < order.count {
            if let record = records.removeValue(forKey: order[next]) { chunk.append(record) }
            next += 1
        }
        if records.isEmpty {
            // Not keeping capacity: after a flood of first sightings these would stay large.
            records = [:]
            order = []
            next = 0
        } else if next >= 4_096, next * 2 >= order.count {
            order.removeFirst(next)
            next = 0
        }
        return chunk
    }
}
