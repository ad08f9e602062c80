import GeofenceEngine

/// Fences as GeoJSON Features (RFC 7946), as the service holds them: what the map draws and what
/// `GET /api/fences` answers (docs/topics-and-payloads.md "Fences"). Circles are Point features with the effective `radius`,
/// polygons Polygon features (holes as further rings), MultiPolygons MultiPolygon features, corridors
/// LineString features with the effective `buffer_m`; rings are closed. The properties carry every key of the
/// definition (`notify` effective, `devices` always) plus `clamped` and `requested_radius` or
/// `requested_buffer_m` when clamped. `FenceDecoder` reads a Feature back to the fence as held.
public enum FenceFeatureEncoding {
    public static func encode(_ fence: Fence) -> [UInt8] {
        var json = JSONWriter(capacity: 512)
        write(fence, into: &json)
        return json.bytes
    }

    /// A FeatureCollection of `fences`, in the order given.
    public static func encodeCollection(_ fences: [Fence]) -> [UInt8] {
        var json = JSONWriter(capacity: 64 + 400 * fences.count)
        json.beginObject()
        json.key("type")
        json.string("FeatureCollection")
        json.key("features")
        json.beginArray()
        for fence in fences { write(fence, into: &json) }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    static func write(_ fence: Fence, into json: inout JSONWriter) {
        let definition = fence.definition
        json.beginObject()
        json.key("type")
        json.string("Feature")
        json.key("id")
        json.string(definition.id)
        json.key("geometry")
        GeoJSONWriting.geometry(definition.shape, closedRings: true, into: &json)
        json.key("properties")
        json.beginObject()
        FenceDefinitionEncoding.writeNames(of: definition, into: &json)
        if let radius = fence.effectiveRadius {
            json.key("radius")
            json.number(radius)
        }
        if let buffer = fence.effectiveBuffer {
            json.key("buffer_m")
            json.number(buffer)
        }
        FenceDefinitionEncoding.writeRules(of: definition, notify: definition.effectiveNotify.sorted(), allKeys: true, into: &json)
        FenceRegistryPayload.writeClamp(definition: definition, requested: fence.clampedFrom, clamped: fence.isClamped, into: &json)
        json.endObject()
        json.endObject()
    }
}
