/// Turns timestamped positions into alerts by the rules of docs/rules.md "The rules": enter, exit and
/// dwell per device and fence, speeding inside fences with a limit, and the visits of tours.
///
/// Pure: no I/O and no clock. Event time comes with each sample; wall-clock time (for silent
/// confirmation, expiry and fence changes) is handed in by the caller. Device and fence ids are
/// compared as bytes (`ExactID`).
public struct GeofenceEngine: Sendable {
    public private(set) var settings: GeofenceSettings
    public internal(set) var counters = EngineCounters()

    var fenceSlots: [Fence?] = []
    /// Per slot, just what the hot path needs: most candidates are rejected from this alone,
    /// without touching the fence's definition. Nil for a free slot.
    var fenceProbes: [FenceProbe] = []
    var fenceGenerations: [UInt32] = []
    /// Each fence's audience group (`Audiences`).
    var fenceGroups: [Int32] = []
    var slotsByFenceID: [ExactID: Int32] = [:]
    var freeFenceSlots: [Int32] = []
    var index = FenceIndex()
    /// Bumped for every fence added; starts at 1 so that 0 means "never evaluated".
    var generation: UInt32 = 1
    /// Bumped when a fence is removed or its audience changes: the regions devices hold for
    /// merging late samples (`SampleHistory`) are void from then on.
    var fenceEpoch: UInt32 = 0
    var audiences = Audiences()
    /// Fences with an `expires_at`, by slot, and the earliest of those times.
    var expiries: [Int32: Double] = [:]
    var earliestExpiry = Double.infinity

    var tourSlots: [HeldTour?] = []
    var tourSlotsByID: [ExactID: Int32] = [:]
    var freeTourSlots: [Int32] = []
    /// Every tour that has a fence among its stops, and where, by the fence's id.
    var toursByStop: [ExactID: [TourStop]] = [:]

    var devices = DeviceTable()
    /// Recent samples of the devices that may be sending a backlog (docs/rules.md "Late samples").
    var histories = SampleHistories()
    var records = DeviceRecords()
    /// Devices with a pending change that has evidence: the only ones silence can confirm.
    var devicesAwaitingSilence: Set<Int32> = []
    /// Devices with late samples held and not merged yet (docs/rules.md "Late samples").
    var devicesWithOpenBacklog: Set<Int32> = []
    /// Devices that may hold samples kept for an older part of a backlog (`SampleHistory.Held.pinned`).
    var devicesKeepingAnOlderPart: Set<Int32> = []
    /// Devices whose backlog the engine merged by itself (a tick, a fence change), for the caller
    /// to store and show (`takeMergedBacklogs`).
    var mergedBacklogs: [String] = []
    var candidateScratch: [Int32] = []
    var candidateCaches = CandidateCaches()
    /// Enters confirmed during one device's step, for its tours.
    var enteredScratch: [ConfirmedEnter] = []

    public init(settings: GeofenceSettings = GeofenceSettings()) {
        self.settings = settings
    }

    public var fenceCount: Int { slotsByFenceID.count }
    public var deviceCount: Int { devices.count }

    /// Every fence held, in no particular order (sorting 100,000 ids is a tenth of a second).
    public var fences: [Fence] { fenceSlots.compactMap { $0 } }
    /// The ids of the fences held, in the order of ``fences``.
    public var fenceIDs: [String] { fenceSlots.compactMap { $0?.id } }

    public func fence(id: String) -> Fence? {
        slotsByFenceID[ExactID(id)].flatMap { fenceSlots[Int($0)] }
    }

    /// The handle for `id`, registering the device if it is new.
    public mutating func handle(for device: String) -> DeviceHandle {
        registerDevice(device)
    }

    /// The device's handle, its columns made when it is new (a freed place was cleared by
    /// `forgetDevice`, its candidate cache too).
    mutating func registerDevice(_ device: String) -> DeviceHandle {
        let count = devices.ids.count
        var created = false
        let handle = devices.handle(for: device, created: &created)
        if devices.ids.count > count { candidateCaches.addDevice() }
        return handle
    }

    public func deviceID(_ handle: DeviceHandle) -> String { devices.ids[Int(handle.slot)] }

    /// The handle of `device` if the engine holds it; registers nothing (`handle(for:)` does).
    public func handle(ifHeld device: String) -> DeviceHandle? {
        devices.slot(of: device).map { DeviceHandle(slot: $0) }
    }

    /// Whether `handle`'s place holds a device now: a handle kept past its device's forgetting
    /// names whoever took the place since, or nobody.
    public func holds(_ handle: DeviceHandle) -> Bool { devices.live[Int(handle.slot)] }

    /// Whether the engine holds `device` (seen and not forgotten).
    public func knows(device: String) -> Bool { devices.slot(of: device) != nil }

    /// Every device held, in no particular order.
    public var deviceIDs: [String] { devices.liveIDs }

    /// The accuracy of the device's last accurate sample, in metres; nil when unknown (it gave none,
    /// or it came before a restart).
    public func lastAccuracy(of device: String) -> Double? {
        guard let slot = devices.slot(of: device) else { return nil }
        let accuracy = devices.anchorAccuracy[Int(slot)]
        return accuracy.isNaN ? nil : Double(accuracy)
    }

    /// Fence ids the device is inside, sorted by their bytes.
    public func insideFences(of device: String) -> [String] {
        guard let slot = devices.slot(of: device) else { return [] }
        return insideFences(slot: slot)
    }

    /// The same for the device at `handle`; empty when its place holds none.
    public func insideFences(_ handle: DeviceHandle) -> [String] {
        holds(handle) ? insideFences(slot: handle.slot) : []
    }

    func insideFences(slot: Int32) -> [String] {
        guard let record = record(of: slot) else { return [] }
        return record.entries.compactMap { entry in
            entry.state == .inside ? fenceSlots[Int(entry.fenceSlot)]?.id : nil
        }.sorted { ExactID($0) < ExactID($1) }
    }

    /// The state of one device at one fence, as the rules see it. A device the fence is not for
    /// (`devices`) has no state there: unknown.
    public func state(of device: String, in fenceID: String) -> RegionState {
        guard let slot = devices.slot(of: device), let fenceSlot = slotsByFenceID[ExactID(fenceID)] else { return .unknown }
        if let entry = record(of: slot)?.entries.first(where: { $0.fenceSlot == fenceSlot }) { return entry.state }
        guard audiences.groups(of: device).contains(where: { $0 == fenceGroups[Int(fenceSlot)] })
            || fenceGroups[Int(fenceSlot)] == Audiences.everyone
        else { return .unknown }
        return devices.knownGeneration[Int(slot)] >= fenceGenerations[Int(fenceSlot)] ? .outside : .unknown
    }

    /// The change of one device at one fence that waits for its debounce, if any.
    public func pendingChange(of device: String, in fenceID: String) -> PendingChange? {
        entry(of: device, in: fenceID)?.pending
    }

    /// One device's speeding at one fence: the run over the limit, or the episode alerted.
    public func speeding(of device: String, in fenceID: String) -> SpeedingEpisode? {
        entry(of: device, in: fenceID)?.speeding
    }

    public func seq(of device: String) -> UInt64 {
        devices.slot(of: device).map { devices.seq[Int($0)] } ?? 0
    }

    func entry(of device: String, in fenceID: String) -> RegionEntry? {
        guard let slot = devices.slot(of: device), let fenceSlot = slotsByFenceID[ExactID(fenceID)] else { return nil }
        return record(of: slot)?.entries.first { $0.fenceSlot == fenceSlot }
    }

    func record(of deviceSlot: Int32) -> DeviceRegions? {
        let index = devices.record[Int(deviceSlot)]
        return index < 0 ? nil : records[index]
    }
}
