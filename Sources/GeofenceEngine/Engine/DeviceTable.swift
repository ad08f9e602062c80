/// Per-device columns. Parallel arrays keep a device that is outside everything down to a few
/// scalars, with no allocation of its own. Devices are keyed by their exact bytes (`ExactID`).
struct DeviceTable: Sendable {
    private(set) var ids: [String] = []
    /// Each live id's slot (`IDIndex`: the ids are kept once, in `ids`, which change only here).
    private(set) var index = IDIndex()
    /// Places of forgotten devices, given to the next new ones.
    var freeSlots: [Int32] = []
    var lastTimestamp: [Double] = []
    /// The last accurate sample, the old-side anchor for interpolating crossings.
    var anchorTime: [Double] = []
    var anchorLat: [Double] = []
    var anchorLon: [Double] = []
    /// The anchor's accuracy, NaN unknown (not kept across a restart): what an alert of a fence
    /// change (no sample of its own) tells the integrations of the device's position.
    var anchorAccuracy: [Float] = []
    var seq: [UInt64] = []
    /// Fences with a generation above this were added after the device's last evaluated sample.
    var knownGeneration: [UInt32] = []
    /// Wall clock of the last accepted sample, for forgetting silent devices; -inf before one.
    var lastHeard: [Double] = []
    /// The device's place in `DeviceRecords`, or -1 when it has nothing beyond these columns.
    var record: [Int32] = []
    /// The audience groups of each device, found for `Audiences.version` `groupsVersion`
    /// (``groups(of:)``). Grown only up to the last device whose groups were asked for: without
    /// fences for some devices (docs/rules.md "Fleet rules") none are, and the two
    /// columns were 12 bytes a device of the million in fleetbench's scale phase.
    private(set) var groups: [[Int32]] = []
    private(set) var groupsVersion: [UInt32] = []
    /// Whether the slot holds a device (false once forgotten, until reused).
    var live: [Bool] = []
    /// The device's place in the engine's `SampleHistories`, or -1 while it holds no samples for
    /// merging late ones (docs/rules.md "Late samples"), or `firstSampleHeld`, or
    /// `confirmedSinceAnchor`.
    var history: [Int32] = []
    /// The speed of the device's first accurate sample (NaN: unknown, a `Double` as in
    /// `SampleHistory.Held`) and the engine's fence epoch then (a fence removed or reassigned
    /// since voids it, as it voids a history), read only while `history` is `firstSampleHeld`; its
    /// accuracy is the anchor's. Two columns, 12 bytes a device, where one column of the three
    /// took 16.
    var firstSpeed: [Double] = []
    var firstEpoch: [UInt32] = []

    /// In `history`: the device's only judged sample is its first, held at no cost. The regions
    /// before it were empty, and it is the anchor columns with `firstSpeed` and `firstEpoch`: a
    /// history is made of it only if a late sample comes, or a sample after a gap (a million
    /// devices seen once hold nothing more). It alerted nothing and left no change pending (first
    /// sight is silent), so nothing confirmed since needs marking on it.
    static let firstSampleHeld: Int32 = -2

    /// In `history`: nothing held, and silence confirmed a change after the anchor (the device's
    /// last judged sample). A late sample newer than the anchor would judge that fence again, with
    /// no mark to say it is settled: it is dropped, as before any was merged with nothing held.
    static let confirmedSinceAnchor: Int32 = -3

    var count: Int { index.count }

    func slot(of id: String) -> Int32? { slot(of: ExactID(id)) }

    @inline(__always)
    func slot(of key: ExactID) -> Int32? {
        index.slot(of: key) { ExactID(ids[Int($0)]) == key }
    }

    /// Every live device's id.
    var liveIDs: [String] { ids.indices.compactMap { live[$0] ? ids[$0] : nil } }

    /// The device's handle; `created` tells whether it was new (its columns made or reset).
    mutating func handle(for id: String, created: inout Bool) -> DeviceHandle {
        let key = ExactID(id)
        if let slot = slot(of: key) { return DeviceHandle(slot: slot) }
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
            anchorAccuracy[i] = .nan
            seq[i] = 0
            knownGeneration[i] = 0
            lastHeard[i] = -.infinity
            record[i] = -1
            if i < groups.count {
                groups[i] = []
                groupsVersion[i] = .max
            }
            live[i] = true
            history[i] = -1
            firstSpeed[i] = .nan
            firstEpoch[i] = 0
        } else {
            slot = Int32(ids.count)
            ids.append(key.string)
            lastTimestamp.append(-.infinity)
            anchorTime.append(.nan)
            anchorLat.append(.nan)
            anchorLon.append(.nan)
            anchorAccuracy.append(.nan)
            seq.append(0)
            knownGeneration.append(0)
            lastHeard.append(-.infinity)
            record.append(-1)
            live.append(true)
            history.append(-1)
            firstSpeed.append(.nan)
            firstEpoch.append(0)
        }
        index.insert(key, at: slot)
        return DeviceHandle(slot: slot)
    }

    /// The device's audience groups as last found; none before they were.
    @inline(__always)
    func groups(of slot: Int) -> [Int32] { slot < groups.count ? groups[slot] : [] }

    /// The `Audiences.version` the device's groups were found for; `.max` before they were.
    func groupsVersion(of slot: Int) -> UInt32 { slot < groupsVersion.count ? groupsVersion[slot] : .max }

    mutating func setGroups(_ found: [Int32], version: UInt32, of slot: Int) {
        if slot >= groups.count {
            let missing = slot + 1 - groups.count
            groups.append(contentsOf: repeatElement([], count: missing))
            groupsVersion.append(contentsOf: repeatElement(.max, count: missing))
        }
        groups[slot] = found
        groupsVersion[slot] = version
    }

    /// Frees the slot of `id` for reuse; its columns are reset when it is given out again.
    mutating func remove(_ slot: Int32) {
        let i = Int(slot)
        index.remove(ExactID(ids[i])) { $0 == slot }
        ids[i] = ""
        if i < groups.count { groups[i] = [] }
        live[i] = false
        freeSlots.append(slot)
    }
}
