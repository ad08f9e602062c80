/// What a reader is shown of a device: its latest sample, its alerts so far and the fences it is
/// inside, read from the engine's columns without copying every region as a `DeviceRecord`
/// does. Not faster for it in the soak (perf: 3.6% of the service's samples for 45,000 views a
/// second, against 3.7% through records): the time goes to the columns' cache misses.
public struct DeviceSummary: Sendable, Equatable {
    public var device: String
    /// As `DeviceRecord`'s fields of the same names.
    public var lastTimestamp: Double?
    public var anchorTime: Double?
    public var anchorLat: Double?
    public var anchorLon: Double?
    public var seq: UInt64
    /// Fences the device is inside, by id, sorted.
    public var inside: [String]
}
