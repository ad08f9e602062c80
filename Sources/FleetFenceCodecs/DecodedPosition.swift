import GeofenceEngine

/// One position report as it arrived, validated, before the service gives it an arrival time.
public struct DecodedPosition: Sendable, Hashable {
    /// Degrees, WGS84, in [-90, 90].
    public var lat: Double
    /// Degrees, WGS84, in [-180, 180].
    public var lon: Double
    /// Event time, seconds since the Unix epoch; `nil` when the payload had none (the service uses arrival time).
    public var timestamp: Double?
    /// Horizontal accuracy in metres, >= 0; `nil` means good.
    public var accuracy: Double?
    /// Speed in m/s as the device sent it (>= 0); `nil` when absent, negative (a common "unknown"
    /// marker) or too large to be in km/h (`1e308` made an alert's `max_speed_kmh` infinite: null).
    public var speed: Double?
    /// Heading in degrees [0, 360] as the device sent it; `nil` when absent or out of that range.
    public var heading: Double?

    // Every input's decoder ends here, so the rules of an unknown speed or heading are kept here
    // alone; the decoders only convert units.

    public init(
        lat: Double, lon: Double, timestamp: Double? = nil, accuracy: Double? = nil, speed: Double? = nil,
        heading: Double? = nil
    ) {
        self.lat = lat
        self.lon = lon
        self.timestamp = timestamp
        self.accuracy = accuracy
        self.speed = speed.flatMap { $0 >= 0 && ($0 * 3.6).isFinite ? $0 : nil }
        self.heading = heading.flatMap { (0...360).contains($0) ? $0 : nil }
    }

    /// The engine's sample, taking `arrival` as event time when the payload had no `ts`.
    public func sample(arrival: Double) -> PositionSample {
        PositionSample(lat: lat, lon: lon, timestamp: timestamp ?? arrival, accuracy: accuracy, speed: speed)
    }
}
