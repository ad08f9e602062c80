import GeofenceEngine

/// The alert published on `<prefix>/alerts/<device>/<fence>/<event>`.
///
/// Keys in the contract's order: `event`, `device`, `fence`, `name`, `at`, `confirmed_at`, `lat`, `lon`,
/// `radius_m` (circles only), `seq`, then `dwell_s`, `duration_s` and `reason` when the transition carries
/// them. `name` is always a string: the fence's name, or its id when it has none, so that a consumer can
/// show it without a null check. Durations are rounded to milliseconds, like the times. `instance` ends
/// the object when several instances share a broker, so that a subscriber sees which one alerted.
public enum AlertPayload {
    public static func encode(_ t: Transition, instance: String? = nil) -> [UInt8] {
        var json = JSONWriter(capacity: 320)
        json.beginObject()
        json.key("event")
        json.string(t.event.rawValue)
        json.key("device")
        json.string(t.device)
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
        if let instance {
            json.key("instance")
            json.string(instance)
        }
        json.endObject()
        return json.bytes
    }

    /// The fence's name, or its id when the name is missing or empty.
    public static func displayName(_ t: Transition) -> String {
        if let name = t.fenceName, !name.isEmpty { return name }
        return t.fenceID
    }

    static func roundedToMilliseconds(_ seconds: Double) -> Double {
        guard seconds.isFinite else { return seconds }
        return (seconds * 1000).rounded(.toNearestOrAwayFromZero) / 1000
    }
}
