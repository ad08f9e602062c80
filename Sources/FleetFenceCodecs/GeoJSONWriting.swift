import GeofenceEngine

/// Shapes as GeoJSON geometries (RFC 7946): positions `[lon, lat]`; a polygon's rings outer first.
enum GeoJSONWriting {
    /// `closedRings`: repeat each ring's first position at its end when the author did not, as RFC 7946
    /// asks of a linear ring (the definition itself keeps the ring as given).
    static func geometry(_ shape: FenceShape, closedRings: Bool, into json: inout JSONWriter) {
        json.beginObject()
        json.key("type")
        switch shape {
        case let .circle(center, _):
            json.string("Point")
            json.key("coordinates")
            position(center, into: &json)
        case let .polygon(outer, holes):
            json.string("Polygon")
            json.key("coordinates")
            rings([outer] + holes, closed: closedRings, into: &json)
        case let .multiPolygon(polygons):
            json.string("MultiPolygon")
            json.key("coordinates")
            json.beginArray()
            for polygon in polygons { rings([polygon.outer] + polygon.holes, closed: closedRings, into: &json) }
            json.endArray()
        case let .corridor(line, _):
            json.string("LineString")
            json.key("coordinates")
            positions(line, closed: false, into: &json)
        }
        json.endObject()
    }

    private static func rings(_ rings: [[Coordinate]], closed: Bool, into json: inout JSONWriter) {
        json.beginArray()
        for ring in rings { positions(ring, closed: closed, into: &json) }
        json.endArray()
    }

    static func positions(_ points: [Coordinate], closed: Bool, into json: inout JSONWriter) {
        json.beginArray()
        for point in points { position(point, into: &json) }
        if closed, let first = points.first, points.last != first { position(first, into: &json) }
        json.endArray()
    }

    static func position(_ point: Coordinate, into json: inout JSONWriter) {
        json.beginArray()
        json.number(point.lon)
        json.number(point.lat)
        json.endArray()
    }
}
