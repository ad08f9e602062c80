/// A confirmed enter, exit or dwell of one device at one fence: what becomes an alert.
public struct Transition: Sendable, Hashable, Codable {
    public var event: AlertEvent
    public var device: String
    public var fenceID: String
    public var fenceName: String?
    /// Estimated time the boundary was crossed (event time, seconds since the epoch).
    public var at: Double
    /// Event time of the sample (or the silence) that confirmed it.
    public var confirmedAt: Double
    /// The confirming position.
    public var lat: Double
    public var lon: Double
    /// Effective radius for circles; `nil` for polygons.
    public var radiusMeters: Double?
    /// Grows by one with every alert of this device.
    public var seq: UInt64
    /// For `dwell`: seconds inside so far.
    public var dwellSeconds: Double?
    /// For `exit`: seconds inside since the matching enter.
    public var durationSeconds: Double?
    /// Why, when not a crossing (`fence_removed`).
    public var reason: String?

    public init(
        event: AlertEvent, device: String, fenceID: String, fenceName: String?, at: Double, confirmedAt: Double,
        lat: Double, lon: Double, radiusMeters: Double?, seq: UInt64, dwellSeconds: Double? = nil,
        durationSeconds: Double? = nil, reason: String? = nil
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
    }
}
