/// A position of a format that names its device in the payload (Traccar, OsmAnd, a mapping, an
/// HTTP batch): the device id, checked by ``DeviceIDRules``, and the position, validated.
public struct ForeignPosition: Sendable, Hashable {
    public var device: String
    public var position: DecodedPosition

    public init(device: String, position: DecodedPosition) {
        self.device = device
        self.position = position
    }
}

/// Speeds in, to the native m/s.
public enum SpeedUnit: String, Sendable, Hashable, CaseIterable {
    case metresPerSecond = "m/s"
    case kilometresPerHour = "km/h"
    case knots

    /// m/s per unit.
    var factor: Double {
        switch self {
        case .metresPerSecond: 1
        case .kilometresPerHour: 1 / 3.6
        case .knots: 1852.0 / 3600.0
        }
    }
}
