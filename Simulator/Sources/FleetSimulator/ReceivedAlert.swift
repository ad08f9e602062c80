import FleetFenceCodecs
import Foundation
import GeofenceEngine

/// An alert as the service published it: a fence's on `<prefix>/alerts/<device>/<fence>/<event>`,
/// a tour's on `<prefix>/progress/<device>/<tour>/<event>` (docs/rules.md "Tours").
public struct ReceivedAlert: Sendable, Hashable, Decodable {
    public var event: AlertEvent
    public var device: String
    /// The fence; for a tour's event, its `stop`.
    public var fence: String
    public var name: String?
    /// Estimated crossing, simulated seconds since the epoch (for `speeding`, the episode's first
    /// sample over the limit; for a tour's event, the visiting enter's crossing).
    public var at: Double
    /// The event time that confirmed it; a tour's events need not carry one.
    public var confirmedAt: Double?
    public var lat: Double?
    public var lon: Double?
    public var radius: Double?
    public var seq: UInt64?
    public var dwellSeconds: Double?
    public var durationSeconds: Double?
    public var reason: String?
    /// A tour's event: the tour and the stop's place in it.
    public var tour: String?
    public var stopIndex: Int?
    /// `speeding`: the episode's highest speed and the fence's limit, km/h.
    public var maxSpeedKmh: Double?
    public var limitKmh: Double?
    /// The instance that published it (`instance.name`), when several share a broker (docs/several-instances.md
    /// "Several instances").
    public var instance: String?
    /// Wall clock when it arrived, seconds since the epoch (0 when unknown).
    public var received: Double = 0

    public init(
        event: AlertEvent, device: String, fence: String, name: String? = nil, at: Double, confirmedAt: Double?,
        lat: Double? = nil, lon: Double? = nil, seq: UInt64? = nil, durationSeconds: Double? = nil,
        dwellSeconds: Double? = nil, reason: String? = nil, tour: String? = nil, stopIndex: Int? = nil,
        maxSpeedKmh: Double? = nil, limitKmh: Double? = nil, instance: String? = nil, received: Double = 0
    ) {
        self.event = event
        self.device = device
        self.fence = fence
        self.name = name
        self.at = at
        self.confirmedAt = confirmedAt
        self.lat = lat
        self.lon = lon
        self.seq = seq
        self.durationSeconds = durationSeconds
        self.dwellSeconds = dwellSeconds
        self.reason = reason
        self.tour = tour
        self.stopIndex = stopIndex
        self.maxSpeedKmh = maxSpeedKmh
        self.limitKmh = limitKmh
        self.instance = instance
        self.received = received
    }

    enum CodingKeys: String, CodingKey {
        case event, device, fence, name, at, lat, lon, seq, reason, tour, stop, instance
        case confirmedAt = "confirmed_at"
        case radius = "radius_m"
        case dwellSeconds = "dwell_s"
        case durationSeconds = "duration_s"
        case stopIndex = "stop_index"
        case maxSpeedKmh = "max_speed_kmh"
        case limitKmh = "limit_kmh"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        event = try c.decode(AlertEvent.self, forKey: .event)
        device = try c.decode(String.self, forKey: .device)
        if event.isTourEvent {
            fence = try c.decode(String.self, forKey: .stop)
            tour = try c.decode(String.self, forKey: .tour)
            stopIndex = try c.decode(Int.self, forKey: .stopIndex)
        } else {
            fence = try c.decode(String.self, forKey: .fence)
        }
        name = try c.decodeIfPresent(String.self, forKey: .name)
        at = try Self.time(c, .at)
        confirmedAt = c.contains(.confirmedAt) || !event.isTourEvent ? try Self.time(c, .confirmedAt) : nil
        lat = try c.decodeIfPresent(Double.self, forKey: .lat)
        lon = try c.decodeIfPresent(Double.self, forKey: .lon)
        radius = try c.decodeIfPresent(Double.self, forKey: .radius)
        seq = try c.decodeIfPresent(UInt64.self, forKey: .seq)
        dwellSeconds = try c.decodeIfPresent(Double.self, forKey: .dwellSeconds)
        durationSeconds = try c.decodeIfPresent(Double.self, forKey: .durationSeconds)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        maxSpeedKmh = try c.decodeIfPresent(Double.self, forKey: .maxSpeedKmh)
        limitKmh = try c.decodeIfPresent(Double.self, forKey: .limitKmh)
        instance = try c.decodeIfPresent(String.self, forKey: .instance)
    }

    /// RFC 3339 as docs/topics-and-payloads.md "Topics and payloads" says; epoch seconds accepted too.
    private static func time(_ c: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Double {
        if let seconds = try? c.decode(Double.self, forKey: key) { return seconds }
        let text = try c.decode(String.self, forKey: key)
        guard let seconds = RFC3339.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "\(text) is not RFC 3339")
        }
        return seconds
    }

    /// Decodes an alert payload; throws for anything that is not one.
    public static func decode(_ payload: [UInt8], received: Double = 0) throws -> ReceivedAlert {
        var alert = try JSONDecoder().decode(ReceivedAlert.self, from: Data(payload))
        alert.received = received
        return alert
    }
}
