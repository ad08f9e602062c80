/// One position report of a device, in event time.
public struct PositionSample: Sendable, Hashable {
    public var lat: Double
    public var lon: Double
    /// Event time, seconds since the Unix epoch.
    public var timestamp: Double
    /// Horizontal accuracy in metres; `nil` means good.
    public var accuracy: Double?
    /// Speed over ground in m/s; `nil` when unknown, which says nothing about speeding.
    public var speed: Double?

    /// A negative or non-finite `speed` is read as unknown (a common marker for "no fix").
    public init(lat: Double, lon: Double, timestamp: Double, accuracy: Double? = nil, speed: Double? = nil) {
        self.lat = lat
        self.lon = lon
        self.timestamp = timestamp
        self.accuracy = accuracy
        self.speed = speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
    }
}
