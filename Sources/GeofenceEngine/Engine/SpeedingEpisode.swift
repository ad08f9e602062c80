/// A device's speeding at one fence (docs/rules.md "The rules", `speed_limit_kmh`): a run of samples
/// over the limit that becomes an episode, alerted once, when it has lasted `debounce_s`; the
/// episode ends after `debounce_s` of samples at or under the limit, or when the device leaves.
public struct SpeedingEpisode: Sendable, Hashable, Codable {
    /// Event time of the run's first sample over the limit: the alert's `at`.
    public var since: Double
    /// The highest speed of the run so far, m/s.
    public var maxSpeed: Double
    /// The episode was confirmed and alerted.
    public var alerted: Bool
    /// In an alerted episode: the first of the samples at or under the limit since the last one over.
    public var calmSince: Double?

    public init(since: Double, maxSpeed: Double, alerted: Bool, calmSince: Double?) {
        self.since = since
        self.maxSpeed = maxSpeed
        self.alerted = alerted
        self.calmSince = calmSince
    }
}
