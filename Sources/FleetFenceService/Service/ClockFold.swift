import GeofenceEngine

/// A fold of the journal's clock log under way (docs/operations.md "Journal"): the devices logged
/// since the last fold, handed to the writer a second's part at a time, each part in slices of
/// the core's lock. The writer deletes the log's rows written before the first slice once the
/// last slice's clocks are written, so `first` and `last` must each mark exactly one slice.
struct ClockFold {
    /// How often the clock log is folded into `device_clocks`, a row per device logged since the
    /// last fold: a device reporting every 5 s has its row written once a fold rather than every
    /// second (about 6 times less often in the soak, where folds run back to back). Sooner once
    /// this many clocks are logged, so that the log a restart reads stays about two folds long
    /// (about 60 bytes a clock).
    static let interval = 60.0
    static let entries = 1_000_000
    /// A fold goes to the writer over half its interval at most, and at least `pace` devices a
    /// second: handed over at once, a fold of 225,000 devices held as many clocks in the writer's
    /// memory (each in a slot sized for a whole record; 510 MB resident in the soak's first
    /// minute).
    static let seconds = 30
    static let pace = 5_000

    struct Part {
        var devices: ArraySlice<ExactID>
        /// The fold's first slice: it covers the log's rows written before it.
        var first: Bool
        /// The fold's last slice: once its clocks are written, those rows go.
        var last: Bool
    }

    /// In the journal's order (`device_clocks` is stored by id: a chunk of neighbours fills a few
    /// pages of the WAL, where a chunk of devices from all over the table filled one page per
    /// row), sorted off the core's lock.
    private let devices: [ExactID]
    private let slice: Int
    private let perSecond: Int
    private var next = 0

    init(_ devices: [ExactID], slice: Int) {
        self.devices = devices.sortedByID()
        self.slice = slice
        perSecond = max(Self.pace, devices.count / Self.seconds + 1)
    }

    /// Every device has been handed over.
    var isHandedOver: Bool { next == devices.count }

    /// This second's slices.
    mutating func nextSecond() -> [Part] {
        let end = min(devices.count, next + perSecond)
        let parts = stride(from: next, to: end, by: slice).map { start in
            let slice = devices[start..<min(end, start + slice)]
            return Part(devices: slice, first: start == 0, last: slice.endIndex == devices.count)
        }
        next = end
        return parts
    }
}
