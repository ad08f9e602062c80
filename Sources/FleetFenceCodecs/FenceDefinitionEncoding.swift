import GeofenceEngine

/// A fence definition as the plain object a `<prefix>/fences/<id>/set` payload carries, exactly as its
/// author gave it: the requested radius, `notify` only when given. `FenceDecoder.decodeDefinition` reads it
/// back to an equal definition, so the journal keeps fences in the contract's own format.
public enum FenceDefinitionEncoding {
    public static func encode(_ definition: FenceDefinition) -> [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        writeMembers(of: definition, radius: nil, notify: definition.notify.map { $0.sorted() }, into: &json)
        json.endObject()
        return json.bytes
    }

    /// Writes `id`, `name`, `description`, the shape (`lat`, `lon`, `radius` or `polygon`), `notify` when
    /// given and `dwell_s` into the open object. `radius` replaces the circle's own (the registry shows the
    /// effective radius).
    static func writeMembers(of definition: FenceDefinition, radius: Double?, notify: [AlertEvent]?, into json: inout JSONWriter) {
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
        switch definition.shape {
        case let .circle(center, definedRadius):
            json.key("lat")
            json.number(center.lat)
            json.key("lon")
            json.number(center.lon)
            json.key("radius")
            json.number(radius ?? definedRadius)
        case let .polygon(points, _):
            json.key("polygon")
            json.beginArray()
            for point in points {
                json.beginArray()
                json.number(point.lon)
                json.number(point.lat)
                json.endArray()
            }
            json.endArray()
        case .multiPolygon, .corridor:
            preconditionFailure("MultiPolygons and corridors are encoded from the next commit on")
        }
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
    }
}
