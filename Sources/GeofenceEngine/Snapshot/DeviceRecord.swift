/// Everything the engine knows of one device, in a form that outlives the process.
public struct DeviceRecord: Sendable, Hashable, Codable {
    public struct Region: Sendable, Hashable, Codable {
        public var fence: String
        public var state: RegionState
        public var enteredAt: Double
        public var dwellReported: Bool
        public var pending: PendingChange?
        /// Speeding inside the fence: the run over its limit, or the episode alerted.
        public var speeding: SpeedingEpisode?

        public init(
            fence: String, state: RegionState, enteredAt: Double, dwellReported: Bool, pending: PendingChange?,
            speeding: SpeedingEpisode? = nil
        ) {
            self.fence = fence
            self.state = state
            self.enteredAt = enteredAt
            self.dwellReported = dwellReported
            self.pending = pending
            self.speeding = speeding
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
    /// Wall clock of the last sample the rules read (for silent confirmation); nil when nothing
    /// waits for silence.
    public var lastArrival: Double?
    public var regions: [Region]
    /// Progress in tours, one per tour the device has visited.
    public var tours: [TourProgress]
    /// Wall clock of the last accepted sample (for forgetting silent devices).
    public var lastHeard: Double?

    public init(
        device: String, lastTimestamp: Double?, anchorTime: Double?, anchorLat: Double?, anchorLon: Double?, seq: UInt64,
        knownGeneration: UInt32, lastArrival: Double?, regions: [Region], tours: [TourProgress] = [], lastHeard: Double? = nil
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
        self.tours = tours
        self.lastHeard = lastHeard
    }
}

extension DeviceRecord {
    private enum CodingKeys: String, CodingKey {
        case device, lastTimestamp, anchorTime, anchorLat, anchorLon, seq, knownGeneration, lastArrival, regions, tours, lastHeard
    }

    /// Records written before tours existed, or without progress, have no `tours`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            device: try c.decode(String.self, forKey: .device), lastTimestamp: try c.decodeIfPresent(Double.self, forKey: .lastTimestamp),
            anchorTime: try c.decodeIfPresent(Double.self, forKey: .anchorTime), anchorLat: try c.decodeIfPresent(Double.self, forKey: .anchorLat),
            anchorLon: try c.decodeIfPresent(Double.self, forKey: .anchorLon), seq: try c.decode(UInt64.self, forKey: .seq),
            knownGeneration: try c.decode(UInt32.self, forKey: .knownGeneration),
            lastArrival: try c.decodeIfPresent(Double.self, forKey: .lastArrival), regions: try c.decode([Region].self, forKey: .regions),
            tours: try c.decodeIfPresent([TourProgress].self, forKey: .tours) ?? [],
            lastHeard: try c.decodeIfPresent(Double.self, forKey: .lastHeard))
    }
}

/// A fence with the generation it was added in, so that restored devices know which fences are
/// new to them (docs/rules.md "The rules", first sight).
public struct FenceRecord: Sendable, Hashable, Codable {
    public var definition: FenceDefinition
    public var generation: UInt32

    public init(definition: FenceDefinition, generation: UInt32) {
        self.definition = definition
        self.generation = generation
    }
}

/// All engine state: fences, tours and devices.
public struct EngineSnapshot: Sendable, Hashable, Codable {
    public var generation: UInt32
    public var fences: [FenceRecord]
    public var tours: [TourDefinition]
    public var devices: [DeviceRecord]

    public init(generation: UInt32, fences: [FenceRecord], tours: [TourDefinition] = [], devices: [DeviceRecord]) {
        self.generation = generation
        self.fences = fences
        self.tours = tours
        self.devices = devices
    }
}
