import GeofenceEngine

/// The retained fence on `<prefix>/fences/<fence>`: the fence as the service holds it, in the definition's
/// own keys, so that it can be sent back to `.../set` unchanged.
///
/// Keys: `id`, `name` and `description` (when set), `lat`, `lon`, `radius` (the effective radius) or
/// `polygon` (`[[lon, lat], ...]`), `notify` (the effective set, in the order enter, exit, dwell), `dwell_s`
/// (when set), then `"clamped": true` and `requested_radius` when the radius was clamped.
public enum FenceRegistryPayload {
    public static func encode(
        definition: FenceDefinition, effectiveRadius: Double?, requestedRadius: Double?, clamped: Bool
    ) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("id")
        json.string(definition.id)
        if let name = definition.name {
            json.key("name")
            json.string(name)
        }
        if let description = definition.description {
            json.key("description")
            json.string(description)
        }
        var definedRadius: Double?
        switch definition.shape {
        case let .circle(center, radius):
            definedRadius = radius
            json.key("lat")
            json.number(center.lat)
            json.key("lon")
            json.number(center.lon)
            json.key("radius")
            json.number(effectiveRadius ?? radius)
        case let .polygon(points):
            json.key("polygon")
            json.beginArray()
            for point in points {
                json.beginArray()
                json.number(point.lon)
                json.number(point.lat)
                json.endArray()
            }
            json.endArray()
        }
        json.key("notify")
        json.beginArray()
        for event in definition.effectiveNotify.sorted() { json.string(event.rawValue) }
        json.endArray()
        if let dwell = definition.dwellSeconds {
            json.key("dwell_s")
            json.number(dwell)
        }
        if clamped {
            json.key("clamped")
            json.bool(true)
            if let requested = requestedRadius ?? definedRadius {
                json.key("requested_radius")
                json.number(requested)
            }
        }
        json.endObject()
        return json.bytes
    }
}
