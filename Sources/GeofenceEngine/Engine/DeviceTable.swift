/// Per-device columns. Parallel arrays keep a device that is outside everything down to a few
/// scalars, with no allocation of its own. Devices are keyed by their exact bytes (`ExactID`).
struct DeviceTable: Sendable {
    var ids: [String] = []
    var slots: [ExactID: Int32] = [:]
    /// Places of forgotten devices, given to the next new ones.
    var freeSlots: [Int32] = []
    var lastTimestamp: [Double] = []
    /// The last accurate sample, the old-side anchor for interpolating crossings.
    var anchorTime: [Double] = []
    var anchorLat: [Double] = []
    var anchorLon: [Double] = []
    var seq: [UInt64] = []
    /// Fences with a generation above this were added after the device's last evaluated sample.
    var knownGeneration: [UInt32] = []
    /// Wall clock of the last accepted sample, for forgetting silent devices; -inf before one.
    var lastHeard: [Double] = []
    /// The device's place in `DeviceRecords`, or -1 when it has nothing beyond these columns.
    var record: [Int32] = []
    /// The audience groups the device belongs to, found for `Audiences.version` `groupsVersion`.
    var groups: [[Int32]] = []
    var groupsVersion: [UInt32] = []
    /// Whether the slot holds a device (false once forgotten, until reused).
    var live: [Bool] = []
    /// The device's place in the engine's `SampleHistories`, or -1 while it holds no samples for
    /// merging late ones (docs/rules.md "Late samples").
    var history: [Int32] = []

    var count: Int { slots.count }

    func slot(of id: String) -> Int32? { slots[ExactID(id)] }

    /// The device's handle; `created` tells whether it was new (its columns made or reset).
    mutating func handle(for id: String, created: inout Bool) -> DeviceHandle {
        let key = ExactID(id)
        if let slot = slots[key] { return DeviceHandle(slot: slot) }
        created = true
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            let i = Int(slot)
            ids[i] = key.string
            lastTimestamp[i] = -.infinity
            anchorTime[i] = .nan
            anchorLat[i] = .nan
            anchorLon[i] = .nan
            seq[i] = 0
            knownGeneration[i] = 0
            lastHeard[i] = -.infinity
            record[i] = -1
            groups[i] = []
            groupsVersion[i] = .max
            live[i] = true
            history[i] = -1
        } else {
            slot = Int32(ids.count)
            ids.append(key.string)
            lastTimestamp.append(-.infinity)
            anchorTime.append(.nan)
            anchorLat.append(.nan)
            anchorLon.append(.nan)
            seq.append(0)
            knownGeneration.append(0)
            lastHeard.append(-.infinity)
            record.append(-1)
            groups.append([])
            groupsVersion.append(.max)
            live.append(true)
            history.append(-1)
        }
        slots[key] = slot
        return DeviceHandle(slot: slot)
    }

    /// Frees the slot of `id` for reuse; its columns are reset when it is given out again.
    mutating func remove(_ slot: Int32) {
        let i = Int(slot)
        slots[ExactID(ids[i])] = nil
        ids[i] = ""
        groups[i] = []
        live[i] = false
        freeSlots.append(slot)
    }
}
