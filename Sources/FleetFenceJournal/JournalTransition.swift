/// One alerted transition as the journal keeps it: what was published, and the fields people query by.
public struct JournalTransition: Sendable, Equatable {
    /// The row's id: the last tie-breaker of the history's order.
    public var row: Int64 = 0
    public var device: String
    public var fence: String
    /// `enter`, `exit` or `dwell`.
    public var event: String
    /// Estimated crossing time, seconds since the Unix epoch.
    public var at: Double
    /// Event time that confirmed the transition; history ranges filter on this.
    public var confirmedAt: Double
    public var lat: Double
    public var lon: Double
    public var seq: Int64
    /// `fence_removed` for an exit caused by deleting the fence.
    public var reason: String?
    public var durationSeconds: Double?
    public var dwellSeconds: Double?
    /// The exact alert payload that was published.
    public var alertJSON: [UInt8]
    /// The fence's name as the alert gave it (read back from the payload).
    public var name: String?

    public init(
        device: String, fence: String, event: String, at: Double, confirmedAt: Double, lat: Double, lon: Double,
        seq: Int64, reason: String? = nil, durationSeconds: Double? = nil, dwellSeconds: Double? = nil,
        alertJSON: [UInt8]
    ) {
        self.device = device
        self.fence = fence
        self.event = event
        self.at = at
        self.confirmedAt = confirmedAt
        self.lat = lat
        self.lon = lon
        self.seq = seq
        self.reason = reason
        self.durationSeconds = durationSeconds
        self.dwellSeconds = dwellSeconds
        self.alertJSON = alertJSON
    }
}
