import GeofenceEngine

/// A tour as the plain object a `<prefix>/tours/<id>/set` payload carries, with every key written (`devices`
/// and `ordered` included): what the journal keeps and what `<prefix>/tours/<id>` retains, which
/// `TourDecoder` reads back to an equal definition (docs/rules.md "Tours").
public enum TourDefinitionEncoding {
    public static func encode(_ tour: TourDefinition) -> [UInt8] {
        var json = JSONWriter(capacity: 128 + 24 * tour.stops.count)
        json.beginObject()
        json.key("id")
        json.string(tour.id)
        if let name = tour.name {
            json.key("name")
            json.string(name)
        }
        json.key("devices")
        json.beginArray()
        for pattern in tour.devices { json.string(pattern) }
        json.endArray()
        json.key("stops")
        json.beginArray()
        for stop in tour.stops { json.string(stop) }
        json.endArray()
        json.key("ordered")
        json.bool(tour.ordered)
        json.endObject()
        return json.bytes
    }
}
