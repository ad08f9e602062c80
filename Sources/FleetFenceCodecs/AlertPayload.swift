import GeofenceEngine

/// Every alert as published: a fence's on `<prefix>/alerts/<device>/<fence>/<event>`, a tour's on
/// `<prefix>/progress/<device>/<tour>/<event>` (docs/topics-and-payloads.md "Topics and payloads", docs/rules.md "Tours").
///
/// A fence's alert has the keys in the order docs/topics-and-payloads.md "Topics and payloads" shows: `event`, `device`, `fence`, `name`, `at`,
/// `confirmed_at`, `lat`, `lon`, `radius_m` (circles only), `seq`, then `dwell_s`, `duration_s`, `reason`,
/// `max_speed_kmh` and `limit_kmh` when the transition carries them. `name` is always a string: the fence's
/// name, or its id when it has none, so that a consumer can show it without a null check. A tour's event is
/// `{"event", "device", "tour", "stop", "stop_index", "at", "seq"}`, plus `duration_s` for `tour_completed`.
/// Durations are rounded to milliseconds, like the times, and speeds to thousandths of a km/h. `instance`
/// ends either object when several instances share a broker, so that a subscriber sees which one alerted.
public enum AlertPayload {
    public static func encode(_ t: Transition, instance: String? = nil) -> [UInt8] {
        t.event.isTourEvent ? encodeTourEvent(t, instance: instance) : encodeFenceAlert(t, instance: instance)
    }

    /// What both kinds share: `event` and `device` first, `instance` last.
    private static func encodeAlert(
        _ t: Transition, capacity: Int, instance: String?, body: (inout JSONWriter) -> Void
    ) -> [UInt8] {
        var json = JSONWriter(capacity: capacity)
        json.beginObject()
        json.key("event")
        json.string(t.event.rawValue)
        json.key("device")
        json.string(t.device)
        body(&json)
        if let instance {
            json.key("instance")
            json.string(instance)
        }
        json.endObject()
        return json.bytes
    }

    private static func encodeFenceAlert(_ t: Transition, instance: String?) -> [UInt8] {
        encodeAlert(t, capacity: 320, instance: instance) { json in
            json.key("fence")
            json.string(t.fenceID)
            json.key("name")
            json.string(displayName(t))
            json.key("at")
            json.time(t.at)
            json.key("confirmed_at")
            json.time(t.confirmedAt)
            json.key("lat")
            json.number(t.lat)
            json.key("lon")
            json.number(t.lon)
            if let radius = t.radiusMeters {
                json.key("radius_m")
                json.number(radius)
            }
            json.key("seq")
            json.integer(t.seq)
            if let dwell = t.dwellSeconds {
                json.key("dwell_s")
                json.number(roundedToMilliseconds(dwell))
            }
            if let duration = t.durationSeconds {
                json.key("duration_s")
                json.number(roundedToMilliseconds(duration))
            }
            if let reason = t.reason {
                json.key("reason")
                json.string(reason)
            }
            if let speed = t.maxSpeedKmh {
                json.key("max_speed_kmh")
                json.number(roundedToMilliseconds(speed))
            }
            if let limit = t.limitKmh {
                json.key("limit_kmh")
                json.number(limit)
            }
        }
    }

    private static func encodeTourEvent(_ t: Transition, instance: String?) -> [UInt8] {
        encodeAlert(t, capacity: 192, instance: instance) { json in
            json.key("tour")
            json.string(t.tourID ?? "")
            json.key("stop")
            json.string(t.fenceID)
            json.key("stop_index")
            json.integer(Int64(t.stopIndex ?? 0))
            json.key("at")
            json.time(t.at)
            json.key("seq")
            json.integer(t.seq)
            if t.event == .tourCompleted, let duration = t.durationSeconds {
                json.key("duration_s")
                json.number(roundedToMilliseconds(duration))
            }
        }
    }

    /// The fence's name, or its id when the name is missing or empty.
    public static func displayName(_ t: Transition) -> String {
        if let name = t.fenceName, !name.isEmpty { return name }
        return t.fenceID
    }

    public static func roundedToMilliseconds(_ seconds: Double) -> Double {
        guard seconds.isFinite else { return seconds }
        return (seconds * 1000).rounded(.toNearestOrAwayFromZero) / 1000
    }
}
