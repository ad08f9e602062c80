/// A device's retained state as published on `<prefix>/state/<device>`: the fences it is inside
/// after a change, and when and where the change happened.
public struct DeviceStateChange: Sendable, Equatable {
    public var device: String
    public var inside: [String]
    public var at: Double
    public var lat: Double
    public var lon: Double
}
