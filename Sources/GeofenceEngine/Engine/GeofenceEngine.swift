/// Turns timestamped positions into enter, exit and dwell transitions by the contract's rules.
///
/// Pure: no I/O and no clock. Event time comes with each sample; wall-clock time (for silent
/// confirmation and fence changes) is handed in by the caller.
public struct GeofenceEngine: Sendable {
    public private(set) var settings: GeofenceSettings
    public internal(set) var counters = EngineCounters()

    var fenceSlots: [Fence?] = []
    /// Per slot, just what the hot path needs: most candidates are rejected from this alone,
    /// without touching the fence's definition. Nil for a free slot.
    var fenceProbes: [FenceProbe?] = []
    var fenceGenerations: [UInt32] = []
    var slotsByFenceID: [String: Int32] = [:]
    var freeFenceSlots: [Int32] = []
    var index = FenceIndex()
    /// Bumped for every fence added; starts at 1 so that 0 means "never evaluated".
    var generation: UInt32 = 1

    var devices = DeviceTable()
    var regions: [Int32: DeviceRegions] = [:]
    /// Devices with a pending change that has evidence: the only ones silence can confirm.
    var devicesAwaitingSilence: Set<Int32> = []
    var candidateScratch: [Int32] = []

    public init(settings: GeofenceSettings = GeofenceSettings()) {
        self.settings = settings
    }

    public var fenceCount: Int { slotsByFenceID.count }
    public var deviceCount: Int { devices.count }

    /// Every fence held, in no particular order (sorting 100,000 ids is a tenth of a second).
    public var fences: [Fence] { fenceSlots.compactMap { $0 } }

    public func fence(id: String) -> Fence? {
        slotsByFenceID[id].flatMap { fenceSlots[Int($0)] }
    }

    /// The handle for `id`, registering the device if it is new.
    public mutating func handle(for device: String) -> DeviceHandle {
        devices.handle(for: device)
    }

    public func deviceID(_ handle: DeviceHandle) -> String { devices.ids[Int(handle.slot)] }

    /// Fence ids the device is inside, sorted.
    public func insideFences(of device: String) -> [String] {
        guard let slot = devices.slots[device] else { return [] }
        return insideFences(slot: slot)
    }

    func insideFences(slot: Int32) -> [String] {
        guard let record = regions[slot] else { return [] }
        return record.entries.compactMap { entry in
            entry.state == .inside ? fenceSlots[Int(entry.fenceSlot)]?.id : nil
        }.sorted()
    }

    /// The state of one device at one fence, as the rules see it.
    public func state(of device: String, in fenceID: String) -> RegionState {
        guard let slot = devices.slots[device], let fenceSlot = slotsByFenceID[fenceID] else { return .unknown }
        if let entry = regions[slot]?.entries.first(where: { $0.fenceSlot == fenceSlot }) { return entry.state }
        return devices.knownGeneration[Int(slot)] >= fenceGenerations[Int(fenceSlot)] ? .outside : .unknown
    }

    /// Devices that have a pending change.
    public func pendingChange(of device: String, in fenceID: String) -> PendingChange? {
        guard let slot = devices.slots[device], let fenceSlot = slotsByFenceID[fenceID] else { return nil }
        return regions[slot]?.entries.first(where: { $0.fenceSlot == fenceSlot })?.pending
    }

    public func seq(of device: String) -> UInt64 {
        devices.slots[device].map { devices.seq[Int($0)] } ?? 0
    }
}
