/// What the engine knows of one device at one fence.
public enum RegionState: String, Sendable, Hashable, Codable {
    /// Seen, but never with evidence for this fence (first sight inside the band).
    case unknown
    case outside
    case inside
}

/// A change that has started but is not yet confirmed: the device is on the other side of the
/// boundary, and since `evidenceSince` has shown evidence for it.
public struct PendingChange: Sendable, Hashable, Codable {
    /// Estimated crossing time: interpolated between the last old-side and first new-side sample.
    public var crossedAt: Double
    /// Event time of the first new-side evidence (t0 in docs/rules.md "The rules"), if any yet.
    public var evidenceSince: Double?
    /// The latest new-side position, which confirms the change if the device falls silent.
    public var lat: Double
    public var lon: Double

    public init(crossedAt: Double, evidenceSince: Double?, lat: Double, lon: Double) {
        self.crossedAt = crossedAt
        self.evidenceSince = evidenceSince
        self.lat = lat
        self.lon = lon
    }
}

/// Per device and fence, kept only where it differs from "known outside, nothing pending".
///
/// 24 bytes: a pending change and a speeding run (66 and 33 bytes inline) are boxed, since few
/// entries hold either. Inline, an entry took 136 bytes, and every device's regions and every
/// snapshot a held late sample keeps (`SampleHistory`) are made of them: at a million devices in
/// fleetbench's scale phase, 141 MB of entries became 43 MB and 67 MB of boxes (heaptrack,
/// docs/performance.md; half those devices were left with a change pending, a worst case).
struct RegionEntry: Sendable {
    var fenceSlot: Int32
    var state: RegionState
    var dwellReported = false
    /// Crossing time of the enter (or first sight) that made the device inside.
    var enteredAt: Double = 0
    private var rare: Rare?

    init(fenceSlot: Int32, state: RegionState, enteredAt: Double = 0, dwellReported: Bool = false,
         pending: PendingChange? = nil, speeding: SpeedingEpisode? = nil) {
        self.fenceSlot = fenceSlot
        self.state = state
        self.enteredAt = enteredAt
        self.dwellReported = dwellReported
        self.rare = Rare(pending: pending, speeding: speeding)
    }

    var pending: PendingChange? {
        get { rare?.pending }
        set {
            if newValue != nil, isKnownUniquelyReferenced(&rare) {
                rare!.pending = newValue
            } else {
                rare = Rare(pending: newValue, speeding: speeding)
            }
        }
    }

    /// Inside a fence with a speed limit: the run of samples over it, or the episode alerted.
    var speeding: SpeedingEpisode? {
        get { rare?.speeding }
        set {
            if newValue != nil, isKnownUniquelyReferenced(&rare) {
                rare!.speeding = newValue
            } else {
                rare = Rare(pending: pending, speeding: newValue)
            }
        }
    }

    /// The box's allocation, if the entry has one.
    var boxBytes: Int { rare == nil ? 0 : AllocatedBytes.chunk(16 + MemoryLayout<(PendingChange?, SpeedingEpisode?)>.size) }

    /// Whether this entry carries anything beyond the default of known outside.
    var isDefault: Bool { state == .outside && pending == nil }

    /// Changed in place only after `isKnownUniquelyReferenced` says the entry alone holds it, as
    /// an array's buffer is (hence `@unchecked`); a change to a shared box makes a new one, so a
    /// snapshot never sees it. A pending change moves its position at every sample: a new box
    /// each time, with the entry judged as a copy, cost engine-bench 4-10% by case
    /// (docs/performance.md).
    private final class Rare: @unchecked Sendable {
        var pending: PendingChange?
        var speeding: SpeedingEpisode?

        /// Nil when there is nothing to hold: most entries allocate nothing.
        init?(pending: PendingChange?, speeding: SpeedingEpisode?) {
            guard pending != nil || speeding != nil else { return nil }
            self.pending = pending
            self.speeding = speeding
        }
    }
}

/// The sparse part of a device: its non-default regions and its tour progress.
struct DeviceRegions: Sendable {
    /// The device's slot; -1 for a record not in use.
    var device: Int32
    /// Wall-clock time of the device's last sample the rules read, for silent confirmation.
    var lastArrival: Double
    var entries: [RegionEntry] = []
    var tours: [TourProgress] = []
    /// Whether the device is in the engine's set of devices silence can confirm: kept here so
    /// that a sample changes the set, and hashes, only when that changes.
    var awaitingSilence = false

    var hasEvidencePending: Bool { entries.contains { $0.pending?.evidenceSince != nil } }
    var isEmpty: Bool { entries.isEmpty && tours.isEmpty }
}
