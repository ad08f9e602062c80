import FleetFenceCodecs

/// What a truck's position looks like on the wire (`fleetsim --format`; README, "Connecting
/// trackers"): FleetFence's own JSON, or Traccar's forwarded positions, for a service that reads
/// them from `inputs.traccar_topics`.
public enum PositionFormat: String, CaseIterable, Sendable {
    case native
    case traccar

    public func encode(_ sample: TruckSample, device: String) -> [UInt8] {
        switch self {
        case .native: TruckPayload.encode(sample)
        case .traccar: TraccarTruckPayload.encode(sample, device: device)
        }
    }
}

/// A truck's position as Traccar's MQTT forwarder writes one: `{"position": {...}, "device": {...}}`,
/// the device id in `device.uniqueId`, `fixTime` ISO 8601 with a `+00:00` offset, speed in knots.
/// The speed carries the native payload's rounded m/s (`TruckPayload.published`) to six decimals of a
/// knot, so ground truth judges speeding on what the service reads either way.
public enum TraccarTruckPayload {
    static let metresPerSecondPerKnot = 1852.0 / 3600.0

    public static func encode(_ sample: TruckSample, device: String) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("position")
        json.beginObject()
        json.key("valid")
        json.bool(true)
        json.key("fixTime")
        json.string(String(RFC3339.format(sample.time).dropLast()) + "+00:00")
        json.key("latitude")
        json.number(sample.observed.lat)
        json.key("longitude")
        json.number(sample.observed.lon)
        json.key("accuracy")
        json.number(sample.accuracy)
        json.key("speed")
        json.number((TruckPayload.published(speed: sample.truth.speed) / metresPerSecondPerKnot * 1e6).rounded() / 1e6)
        json.key("course")
        json.number(sample.truth.heading.rounded())
        json.endObject()
        json.key("device")
        json.beginObject()
        json.key("name")
        json.string(device)
        json.key("uniqueId")
        json.string(device)
        json.endObject()
        json.endObject()
        return json.bytes
    }
}
