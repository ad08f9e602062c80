import FleetFenceCodecs
import GeofenceEngine

/// A fence as held, as a GeoJSON Feature (`GET /api/fences`): the geometry drawn as the service
/// judges it (effective radius), the definition's keys as properties, plus `clamped` and
/// `requested_radius` when the radius was clamped.
enum FenceFeature {
    static func encode(_ fence: Fence, into json: inout JSONWriter) {
        let definition = fence.definition
        json.beginObject()
        json.key("type")
        json.string("Feature")
        json.key("id")
        json.string(definition.id)
        json.key("geometry")
        json.beginObject()
        switch definition.shape {
        case let .circle(center, _):
            json.key("type")
            json.string("Point")
            json.key("coordinates")
            position(center, into: &json)
        case let .polygon(outer, holes):
            json.key("type")
            json.string("Polygon")
            json.key("coordinates")
            rings([outer] + holes, into: &json)
        case let .multiPolygon(polygons):
            json.key("type")
            json.string("MultiPolygon")
            json.key("coordinates")
            json.beginArray()
            for polygon in polygons { rings([polygon.outer] + polygon.holes, into: &json) }
            json.endArray()
        case let .corridor(line, _):
            json.key("type")
            json.string("LineString")
            json.key("coordinates")
            json.beginArray()
            for point in line { position(point, into: &json) }
            json.endArray()
        }
        json.endObject()
        json.key("properties")
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
        if let radius = fence.effectiveRadius {
            json.key("radius")
            json.number(radius)
        }
        json.key("notify")
        json.beginArray()
        for event in definition.effectiveNotify.sorted() { json.string(event.rawValue) }
        json.endArray()
        if let dwell = definition.dwellSeconds {
            json.key("dwell_s")
            json.number(dwell)
        }
        if let requested = fence.clampedFrom {
            json.key("clamped")
            json.bool(true)
            json.key("requested_radius")
            json.number(requested)
        }
        json.endObject()
        json.endObject()
    }

    static func encode(_ fence: Fence) -> [UInt8] {
        var json = JSONWriter(capacity: 512)
        encode(fence, into: &json)
        return json.bytes
    }

    static func collection(_ fences: [Fence]) -> [UInt8] {
        var json = JSONWriter(capacity: 256 * fences.count + 64)
        json.beginObject()
        json.key("type")
        json.string("FeatureCollection")
        json.key("features")
        json.beginArray()
        for fence in fences { encode(fence, into: &json) }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    private static func position(_ point: Coordinate, into json: inout JSONWriter) {
        json.beginArray()
        json.number(point.lon)
        json.number(point.lat)
        json.endArray()
    }

    private static func rings(_ rings: [[Coordinate]], into json: inout JSONWriter) {
        json.beginArray()
        for points in rings { ring(points, into: &json) }
        json.endArray()
    }

    /// A closed ring, as GeoJSON wants it.
    private static func ring(_ points: [Coordinate], into json: inout JSONWriter) {
        json.beginArray()
        for point in points { position(point, into: &json) }
        if let first = points.first, points.last != first { position(first, into: &json) }
        json.endArray()
    }
}
