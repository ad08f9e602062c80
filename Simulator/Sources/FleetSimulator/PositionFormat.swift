import FleetFenceCodecs

/// What a truck's position looks like on the wire (`fleetsim --format`; docs/trackers.md "Connecting
/// trackers"): FleetFence's own JSON, Traccar's forwarded positions for `inputs.traccar_topics`, a
/// vendor's JSON for an `inputs.mappings` entry (all over MQTT), or the HTTP inputs OsmAnd
/// (`/api/osmand`) and OwnTracks' HTTP mode (`/api/owntracks`).
public enum PositionFormat: String, CaseIterable, Sendable {
    case native
    case traccar
    case mapping
    case osmand
    case owntracksHTTP = "owntracks-http"

    /// Sent to the service's HTTP interface (`--http`) rather than published over MQTT.
    public var isHTTP: Bool { self == .osmand || self == .owntracksHTTP }

    /// MQTT formats only: the payload `device` publishes on its topic.
    public func encode(_ sample: TruckSample, device: String) -> [UInt8] {
        switch self {
        case .native: TruckPayload.encode(sample)
        case .traccar: TraccarTruckPayload.encode(sample, device: device)
        case .mapping: MappingTruckPayload.encode(sample)
        case .osmand, .owntracksHTTP: preconditionFailure("\(rawValue) is sent over HTTP")
        }
    }

    /// The speed (m/s) the service reads from a sample whose noise-free speed is `speed`: what
    /// ground truth judges speeding on. OwnTracks carries whole km/h (`vel`, as the app sends it);
    /// every other format carries the native rounded m/s (`TruckPayload.published`) in its own
    /// unit with enough decimals that the conversion back lands within a millionth of it.
    public func publishedSpeed(_ speed: Double) -> Double? {
        switch self {
        case .owntracksHTTP: Double(Self.ownTracksVelocity(speed)) / 3.6
        default: TruckPayload.published(speed: speed)
        }
    }

    /// OwnTracks' `vel` for a noise-free speed of `speed` m/s: whole km/h.
    static func ownTracksVelocity(_ speed: Double) -> Int {
        Int(TruckPayload.published(speed: speed) * 3.6 + 0.5)
    }

    /// OwnTracks' `tst` is whole seconds: the fleet's sample times must be too, or the service
    /// would judge other instants than ground truth.
    public var needsWholeSeconds: Bool { self == .owntracksHTTP }
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
        json.number(knots(sample))
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

    /// The published m/s in knots, six decimals (Traccar and OsmAnd both speak knots).
    static func knots(_ sample: TruckSample) -> Double {
        (TruckPayload.published(speed: sample.truth.speed) / metresPerSecondPerKnot * 1e6).rounded() / 1e6
    }
}

/// A vendor-like JSON read through an `inputs.mappings` entry (docs/trackers.md "A custom format"):
/// `{"fix": {"lat": "49.2934060", "lon": 8.641362, "time": 1795600000250, "kmh": 36.0, "acc": 5}}`,
/// the device in the topic (`acme/{device}/gps`, `id: topic:2`). `lat` is a string holding a
/// number, as such vendors write it; `time` is epoch milliseconds; `kmh` carries the native
/// payload's rounded m/s times 3.6 to six decimals, so the service's conversion back to m/s gives
/// ground truth's speed.
public enum MappingTruckPayload {
    /// The mapping that reads this payload, for a service's config file (docs/trackers.md "Connecting
    /// trackers"); `topic` is the filter, e.g. `acme/+/gps`.
    public static func configYAML(topic: String = "acme/+/gps") -> String {
        """
        inputs:
          mappings:
            - topic: \(topic)
              id: topic:2
              lat: /fix/lat
              lon: /fix/lon
              ts: /fix/time
              ts_unit: ms
              spd: /fix/kmh
              spd_unit: km/h
              acc: /fix/acc

        """
    }

    public static func encode(_ sample: TruckSample) -> [UInt8] {
        var json = JSONWriter(capacity: 160)
        json.beginObject()
        json.key("fix")
        json.beginObject()
        json.key("lat")
        var lat: [UInt8] = []
        TruckPayload.appendFixed(sample.observed.lat, digits: 7, &lat)
        json.string(String(decoding: lat, as: UTF8.self))
        json.key("lon")
        json.number(sample.observed.lon)
        json.key("time")
        json.integer(Int64((sample.time * 1000).rounded()))
        json.key("kmh")
        json.number((TruckPayload.published(speed: sample.truth.speed) * 3.6 * 1e6).rounded() / 1e6)
        json.key("acc")
        json.number(sample.accuracy)
        json.endObject()
        json.endObject()
        return json.bytes
    }
}
