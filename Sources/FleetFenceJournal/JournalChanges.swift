import GeofenceEngine

/// What one step of the service must make durable before anything it says is published: one
/// transaction's worth, merged with the steps queued beside it (docs/operations.md "Journal").
public struct JournalChanges: Sendable {
    public var alerts: [AlertRecord] = []
    /// Device state written with these alerts.
    public var devices: [DeviceRecord] = []
    /// Device state that may wait behind later alerts (a tick's changed devices without an alert
    /// of their own): the writer holds them and writes a chunk at a time between deliveries,
    /// oldest first (``HeldRecords``). A later record of the same device replaces a held one.
    public var heldDevices: [DeviceRecord] = []
    /// Latest-sample times and places (`DeviceClock`) of a fold of the clock log, written into
    /// `device_clocks` and held like `heldDevices`, in id order: the service sorts a whole fold at
    /// once (`sortedByID`), and the writer holds them as they come. The order is only for speed
    /// (neighbours share pages); any order is journaled the same.
    public var heldClocks: [DeviceClock] = []
    /// Latest-sample clocks journaled at once, packed into the step's transaction's `clock_log`
    /// row (`ClockLog`): the service's clocks of each second.
    public var loggedClocks: [DeviceClock] = []
    /// This step's `heldClocks` begin a fold of the clock log, whose devices are all those logged
    /// before it: the log's rows committed before this step's transaction are the ones it covers.
    public var startsClockFold = false
    /// This step's `heldClocks` end the fold: once they are written, the rows it covers are
    /// deleted (the fold's clocks are newer than any of their entries).
    public var endsClockFold = false
    public var fences: [JournalFenceRow] = []
    public var removedFences: [String] = []
    /// The record of the fences file as last applied: id to encoded definition.
    public var fileFences: [ExactID: [UInt8]] = [:]
    public var removedFileFences: [String] = []
    /// The digest of the fences file vouching for that record (`FencesFileDigest`).
    public var fencesFileDigest: FencesFileDigest.Change?
    /// Tours set (id to encoded definition) and removed.
    public var tours: [ExactID: [UInt8]] = [:]
    public var removedTours: [String] = []
    /// Devices forgotten: their rows go.
    public var removedDevices: [String] = []
    /// OwnTracks devices first seen, with their topic (docs/integrations.md "OwnTracks").
    public var ownTracksTopics: [OwnTracksTopic] = []
    /// Alerts older than this (by `at`) are pruned, a chunk at a time (docs/operations.md "Journal").
    public var pruneAlertsBefore: Double?

    public init(
        alerts: [AlertRecord] = [], devices: [DeviceRecord] = [], heldDevices: [DeviceRecord] = [],
        heldClocks: [DeviceClock] = [], loggedClocks: [DeviceClock] = [], startsClockFold: Bool = false,
        endsClockFold: Bool = false, fences: [JournalFenceRow] = [], removedFences: [String] = [], fileFences: [ExactID: [UInt8]] = [:],
        removedFileFences: [String] = [], removedDevices: [String] = [], pruneAlertsBefore: Double? = nil
    ) {
        self.removedDevices = removedDevices
        self.pruneAlertsBefore = pruneAlertsBefore
        self.alerts = alerts
        self.devices = devices
        self.heldDevices = heldDevices
        self.heldClocks = heldClocks
        self.loggedClocks = loggedClocks
        self.startsClockFold = startsClockFold
        self.endsClockFold = endsClockFold
        self.fences = fences
        self.removedFences = removedFences
        self.fileFences = fileFences
        self.removedFileFences = removedFileFences
    }

    public var isEmpty: Bool {
        alerts.isEmpty && devices.isEmpty && heldDevices.isEmpty && heldClocks.isEmpty && loggedClocks.isEmpty && !startsClockFold
            && !endsClockFold
            && fences.isEmpty && removedFences.isEmpty
            && fileFences.isEmpty && removedFileFences.isEmpty && fencesFileDigest == nil && removedDevices.isEmpty
            && pruneAlertsBefore == nil && tours.isEmpty && removedTours.isEmpty && ownTracksTopics.isEmpty
    }
}

/// An OwnTracks device and the topic it reports on, where its transitions go.
public struct OwnTracksTopic: Sendable, Equatable {
    public var device: String
    public var topic: String

    public init(device: String, topic: String) {
        self.device = device
        self.topic = topic
    }
}

/// A step the writer journals, then hands back to be acted on (published, shown).
public protocol JournalStep: Sendable {
    var changes: JournalChanges { get }
}
