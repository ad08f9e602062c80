/// A device whose set of inside fences changed without a sample of its own (silence confirmed a
/// pending change, or a fence went away), with the time and position its retained state should
/// show. Every such change reports these, also when the fence's `notify` keeps it from alerting.
public struct StateChange: Sendable, Hashable {
    public var device: String
    /// Event time of the change: the latest confirmation of the device's pending changes.
    public var at: Double
    /// The position that stood for the device when it changed: its latest sample.
    public var lat: Double
    public var lon: Double
    /// The set is as it was: the state is shown again for its time (`SampleOutcome.onlyShownAgain`).
    public var onlyShownAgain: Bool

    public init(device: String, at: Double, lat: Double, lon: Double, onlyShownAgain: Bool = false) {
        self.device = device
        self.at = at
        self.lat = lat
        self.lon = lon
        self.onlyShownAgain = onlyShownAgain
    }
}
