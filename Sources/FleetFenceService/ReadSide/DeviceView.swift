/// A device as a reader sees it (a map, an API): where it last was and which fences it is in.
public struct DeviceView: Sendable, Equatable {
    public var device: String
    /// The last accurate sample (README, "The rules": inaccurate samples move nothing).
    public var lat: Double?
    public var lon: Double?
    /// Event time of the last accepted sample.
    public var at: Double?
    /// Fences the device is inside, by id, sorted.
    public var inside: [String]
    /// Alerts so far (the `seq` of the latest).
    public var seq: UInt64

    public init(device: String, lat: Double?, lon: Double?, at: Double?, inside: [String], seq: UInt64) {
        self.device = device
        self.lat = lat
        self.lon = lon
        self.at = at
        self.inside = inside
        self.seq = seq
    }
}
