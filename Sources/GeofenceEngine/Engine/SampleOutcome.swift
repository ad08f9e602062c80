/// What one sample did, beyond the transitions it produced.
public struct SampleOutcome: Sendable, Hashable {
    public enum Status: Sendable, Hashable {
        case accepted
        /// Not newer than the device's last accepted sample: dropped (duplicate or out of order).
        case stale
        /// Coordinates, time or accuracy not finite and in range: dropped.
        case invalid
        /// Older than the latest, within the late window: merged in event time (docs/rules.md "Late samples").
        case late
        /// Older than the latest by more than the late window, or older than what the device
        /// holds to merge with (after a restart): dropped.
        case tooLate
    }

    public var status: Status
    /// The first evaluated sample of this device: its state became known.
    public var firstSight = false
    /// The set of fences the device is inside changed (alerted or silently).
    public var insideChanged = false
    /// The device's durable state changed (worth writing to a journal).
    public var recordChanged = false
    /// With `insideChanged` after a merge: the set is as it was, and the state is shown again
    /// only for its time (a visit made and left within the backlog). Mirrors of the set (Home
    /// Assistant) hear nothing: they follow the newest fix, which may be an inaccurate one.
    public var onlyShownAgain = false
    /// After a merge: the state is shown at this time at the earliest, that of the latest alert
    /// the device's held fixes carry (the merge's own among them). A change silence confirmed
    /// after the newest fix was shown at its confirmation, later than that fix: a state at the
    /// fix would go back in time.
    public var stateNotBefore = -Double.infinity

    public init(status: Status) {
        self.status = status
    }
}

/// Running totals, for the service's stats line.
public struct EngineCounters: Sendable, Hashable {
    public var accepted = 0
    public var stale = 0
    public var late = 0
    public var tooLate = 0
    public var inaccurate = 0
    public var invalid = 0
    public var transitions = 0
}
