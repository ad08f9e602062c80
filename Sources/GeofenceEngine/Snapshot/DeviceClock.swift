/// The part of a device's record that every accepted sample changes, and the only part most
/// samples change: the time and place of its latest sample. The service journals it alone, a
/// few dozen bytes, each second for every device that moved; the whole record only when more
/// changed (docs/operations.md "Journal").
public struct DeviceClock: Sendable, Hashable {
    public var device: String
    /// As `DeviceRecord`'s fields of the same names. Not `lastArrival`: a restart counts silence
    /// from its own start (`StateRestorer`), whatever the record says.
    public var lastTimestamp: Double
    public var anchorTime: Double?
    public var anchorLat: Double?
    public var anchorLon: Double?
    public var lastHeard: Double?

    public init(
        device: String, lastTimestamp: Double, anchorTime: Double?, anchorLat: Double?, anchorLon: Double?,
        lastHeard: Double?
    ) {
        self.device = device
        self.lastTimestamp = lastTimestamp
        self.anchorTime = anchorTime
        self.anchorLat = anchorLat
        self.anchorLon = anchorLon
        self.lastHeard = lastHeard
    }

    /// `record` with these times and place when they are newer than its own (a device's latest
    /// sample only ever moves forward), else unchanged: a record written after this clock already
    /// holds them or newer ones.
    public func applied(to record: DeviceRecord) -> DeviceRecord {
        guard lastTimestamp > (record.lastTimestamp ?? -.infinity) else { return record }
        var record = record
        record.lastTimestamp = lastTimestamp
        // A clock without an anchor was taken before the device's first accurate sample; the
        // record is older still, so it has none either.
        if let anchorTime, anchorTime >= (record.anchorTime ?? -.infinity) {
            record.anchorTime = anchorTime
            record.anchorLat = anchorLat
            record.anchorLon = anchorLon
        }
        if let lastHeard { record.lastHeard = max(record.lastHeard ?? lastHeard, lastHeard) }
        return record
    }
}
