/// One alert of a device: a fence's enter, exit, dwell or speeding, or a tour's stop_visited,
/// stop_skipped or tour_completed. The engine hands them out in one list, in `seq` order.
public struct Transition: Sendable, Hashable, Codable {
    public var event: AlertEvent
    public var device: String
    /// The fence; for a tour event, the stop's fence.
    public var fenceID: String
    public var fenceName: String?
    /// Estimated time the boundary was crossed (event time, seconds since the epoch). For
    /// `speeding`, the first sample of the episode over the limit; for a tour event, the visit's
    /// enter.
    public var at: Double
    /// Event time of the sample (or the silence) that confirmed it.
    public var confirmedAt: Double
    /// The confirming position.
    public var lat: Double
    public var lon: Double
    /// Effective radius for circles; `nil` for other shapes and tour events.
    public var radiusMeters: Double?
    /// Grows by one with every alert of this device, of any kind.
    public var seq: UInt64
    /// For `dwell`: seconds inside so far.
    public var dwellSeconds: Double?
    /// For `exit`: seconds inside since the matching enter. For `tour_completed`: seconds since
    /// the round's first visit.
    public var durationSeconds: Double?
    /// Why, when not a crossing: `fence_removed`, `fence_expired`, `unassigned`.
    public var reason: String?
    /// For a tour event: the tour.
    public var tourID: String?
    /// For a tour event: the stop's place in the tour, from 0.
    public var stopIndex: Int?
    /// For `speeding`: the highest speed of the episode up to its confirmation, km/h.
    public var maxSpeedKmh: Double?
    /// For `speeding`: the fence's limit, km/h.
    public var limitKmh: Double?

    public init(
        event: AlertEvent, device: String, fenceID: String, fenceName: String?, at: Double, confirmedAt: Double,
        lat: Double, lon: Double, radiusMeters: Double?, seq: UInt64, dwellSeconds: Double? = nil,
        durationSeconds: Double? = nil, reason: String? = nil, tourID: String? = nil, stopIndex: Int? = nil,
        maxSpeedKmh: Double? = nil, limitKmh: Double? = nil
    ) {
        self.event = event
        self.device = device
        self.fenceID = fenceID
        self.fenceName = fenceName
        self.at = at
        self.confirmedAt = confirmedAt
        self.lat = lat
        self.lon = lon
        self.radiusMeters = radiusMeters
        self.seq = seq
        self.dwellSeconds = dwellSeconds
        self.durationSeconds = durationSeconds
        self.reason = reason
        self.tourID = tourID
        self.stopIndex = stopIndex
        self.maxSpeedKmh = maxSpeedKmh
        self.limitKmh = limitKmh
    }

    /// Exit reasons besides a crossing.
    public enum Reason {
        /// The fence was deleted.
        public static let fenceRemoved = "fence_removed"
        /// The fence's `expires_at` passed.
        public static let fenceExpired = "fence_expired"
        /// A replace's `devices` no longer matches the device.
        public static let unassigned = "unassigned"
    }
}
