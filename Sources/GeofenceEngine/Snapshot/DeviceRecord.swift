/// Everything the engine knows of one device, in a form that outlives the process.
public struct DeviceRecord: Sendable, Hashable, Codable {
    public struct Region: Sendable, Hashable, Codable {
        public var fence: String
        public var state: RegionState
        public var enteredAt: Double
        public var dwellReported: Bool
        public var pending: PendingChange?

        public init(fence: String, state: RegionState, enteredAt: Double, dwellReported: Bool, pending: PendingChange?) {
            self.fence = fence
            self.state = state
            self.enteredAt = enteredAt
            self.dwellReported = dwellReported
            self.pending = pending
        }
    }

    public var device: String
    /// Event time of the last accepted sample; nil before the first.
    public var lastTimestamp: Double?
    /// The last accurate sample: time, lat, lon.
    public var anchorTime: Double?
    public var anchorLat: Double?
    public var anchorLon: Double?
    public var seq: UInt64
    public var knownGeneration: UInt32
    public var lastArrival: Double?
    public var regions: [Region]

    public init(
        device: String, lastTimestamp: Double?, anchorTime: Double?, anchorLat: Double?, anchorLon: Double?, seq: UInt64,
        knownGeneration: UInt32, lastArrival: Double?, regions: [Region]
    ) {
        self.device = device
        self.lastTimestamp = lastTimestamp
        self.anchorTime = anchorTime
        self.anchorLat = anchorLat
        self.anchorLon = anchorLon
        self.seq = seq
        self.knownGeneration = knownGeneration
        self.lastArrival = lastArrival
        self.regions = regions
    }
}

/// A fence with the generation it was added in, so that restored devices know which fences are
/// new to them (rule 3).
public struct FenceRecord: Sendable, Hashable, Codable {
    public var definition: FenceDefinition
    public var generation: UInt32

    public init(definition: FenceDefinition, generation: UInt32) {
        self.definition = definition
        self.generation = generation
    }
}

/// All engine state: fences and devices.
public struct EngineSnapshot: Sendable, Hashable, Codable {
    public var generation: UInt32
    public var fences: [FenceRecord]
    public var devices: [DeviceRecord]
}
