/// A device as a reader sees it (a map, an API): its retained state and where it was last seen.
public struct DeviceView: Sendable, Equatable {
    public var device: String
    /// Fences the device is inside, by id, sorted.
    public var inside: [String]
    /// When and where its inside set last changed, as on `<prefix>/state/<device>`; before the
    /// read side has seen a change since start, the latest position.
    public var at: Double?
    public var lat: Double?
    public var lon: Double?
    /// Event time of the latest accepted sample.
    public var lastSeen: Double?
    /// The latest accurate position (docs/rules.md "The rules": inaccurate samples move nothing).
    public var lastLat: Double?
    public var lastLon: Double?
    /// Alerts so far (the `seq` of the latest).
    public var seq: UInt64

    public init(
        device: String, inside: [String], at: Double?, lat: Double?, lon: Double?, lastSeen: Double?,
        lastLat: Double?, lastLon: Double?, seq: UInt64
    ) {
        self.device = device
        self.inside = inside
        self.at = at
        self.lat = lat
        self.lon = lon
        self.lastSeen = lastSeen
        self.lastLat = lastLat
        self.lastLon = lastLon
        self.seq = seq
    }
}
