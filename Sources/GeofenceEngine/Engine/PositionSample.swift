/// One position report of a device, in event time.
public struct PositionSample: Sendable, Hashable {
    public var lat: Double
    public var lon: Double
    /// Event time, seconds since the Unix epoch.
    public var timestamp: Double
    /// Horizontal accuracy in metres; `nil` means good.
    public var accuracy: Double?

    public init(lat: Double, lon: Double, timestamp: Double, accuracy: Double? = nil) {
        self.lat = lat
        self.lon = lon
        self.timestamp = timestamp
        self.accuracy = accuracy
    }
}
