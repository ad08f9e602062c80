import GeofenceEngine

/// A fence definition as the plain object a `<prefix>/fences/<id>/set` payload carries, exactly as its
/// author gave it: the requested radius or buffer, `notify` only when given, `devices` only when not every
/// device. `FenceDecoder.decodeDefinition` reads it back to an equal definition, so the journal keeps fences
/// in the format docs/topics-and-payloads.md "Fences" describes.
///
/// Shapes: a circle as `lat`, `lon`, `radius`; a polygon without holes as `polygon`; a polygon with holes, a
/// MultiPolygon or a corridor as a GeoJSON `geometry` (a corridor's `buffer_m` beside it).
public enum FenceDefinitionEncoding {
    public static func encode(_ definition: FenceDefinition) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        writeMembers(of: definition, size: nil, notify: definition.notify.map { $0.sorted() }, allKeys: false, into: &json)
        json.endObject()
        return json.bytes
    }

    /// Writes `id`, `name`, `description`, the shape, `notify` when given, `dwell_s`, `devices`,
    /// `speed_limit_kmh` and `expires_at` into the open object. `size` replaces a circle's radius or a
    /// corridor's buffer (the registry shows the effective one); `allKeys` writes `devices` also when it is
    /// every device (the registry shows the fence as held, defaults included).
    static func writeMembers(
        of definition: FenceDefinition, size: Double?, notify: [AlertEvent]?, allKeys: Bool, into json: inout JSONWriter
    ) {
        writeNames(of: definition, into: &json)
        switch definition.shape {
        case let .circle(center, radius):
            json.key("lat")
            json.number(center.lat)
            json.key("lon")
            json.number(center.lon)
            json.key("radius")
            json.number(size ?? radius)
        case let .polygon(outer, holes) where holes.isEmpty:
            json.key("polygon")
            GeoJSONWriting.positions(outer, closed: false, into: &json)
        case let .corridor(_, buffer):
            json.key("geometry")
            GeoJSONWriting.geometry(definition.shape, closedRings: false, into: &json)
            json.key("buffer_m")
            json.number(size ?? buffer)
        case .polygon, .multiPolygon:
            json.key("geometry")
            GeoJSONWriting.geometry(definition.shape, closedRings: false, into: &json)
        }
        writeRules(of: definition, notify: notify, allKeys: allKeys, into: &json)
    }

    /// `id`, `name` and `description`: how every form of a fence begins, the GeoJSON Feature's
    /// properties too.
    static func writeNames(of definition: FenceDefinition, into json: inout JSONWriter) {
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
    }

    /// The keys beside the id and the shape, shared with the GeoJSON Feature (docs/topics-and-payloads.md "Fences").
    static func writeRules(of definition: FenceDefinition, notify: [AlertEvent]?, allKeys: Bool, into json: inout JSONWriter) {
        if let notify {
            json.key("notify")
            json.beginArray()
            for event in notify { json.string(event.rawValue) }
            json.endArray()
        }
        if let dwell = definition.dwellSeconds {
            json.key("dwell_s")
            json.number(dwell)
        }
        if allKeys || definition.devices != FenceDefinition.everyDevice {
            json.key("devices")
            json.beginArray()
            for pattern in definition.devices { json.string(pattern) }
            json.endArray()
        }
        if let limit = definition.speedLimitKmh {
            json.key("speed_limit_kmh")
            json.number(limit)
        }
        if let expiry = definition.expiresAt {
            json.key("expires_at")
            json.time(expiry)
        }
    }
}
