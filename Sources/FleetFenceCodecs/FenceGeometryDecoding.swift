import GeofenceEngine

/// A GeoJSON geometry as a fence's shape (docs/topics-and-payloads.md "Fences"): `Point` with `radius`, `Polygon`
/// (first ring outer, further rings holes), `MultiPolygon`, `LineString` with `buffer_m` (a
/// corridor). `radius` and `buffer_m` are read beside the geometry: a plain payload's top level,
/// or a Feature's properties.
enum FenceGeometryDecoding {
    /// `field`: where the geometry is ("geometry"); `sizes`: the object holding `radius` and `buffer_m`.
    static func shape(_ value: JSONValue, field: String, sizes: FenceFields) throws(FenceDecodingError) -> FenceShape {
        guard case let .object(object) = value else { throw .notAnObject(field: field, found: value.kindName) }
        let geometry = FenceFields(object, path: "\(field).")
        guard let type = try geometry.string("type") else { throw .missingField("\(field).type") }
        guard let coordinates = geometry.value("coordinates") else { throw .missingField("\(field).coordinates") }
        let at = "\(field).coordinates"
        switch type {
        case "Point":
            if sizes.has("buffer_m") { throw .keyNotForShape(key: "buffer_m", shape: "Point") }
            let center = try FenceFields.position(coordinates, field: at)
            guard let radius = try sizes.number("radius") else { throw .missingField(sizes.path + "radius") }
            return .circle(center: center, radius: radius)
        case "Polygon":
            try refuseSizes(sizes, shape: type)
            let rings = try polygon(coordinates, field: at)
            return .polygon(rings.outer, holes: rings.holes)
        case "MultiPolygon":
            try refuseSizes(sizes, shape: type)
            guard case let .array(members) = coordinates else {
                throw .wrongType(field: at, expected: "an array of polygons", got: coordinates.kindName)
            }
            var polygons: [PolygonRings] = []
            for (i, member) in members.enumerated() { polygons.append(try polygon(member, field: "\(at)[\(i)]")) }
            return .multiPolygon(polygons)
        case "LineString":
            if sizes.has("radius") { throw .keyNotForShape(key: "radius", shape: "LineString") }
            let line = try FenceFields.ring(coordinates, field: at)
            guard let buffer = try sizes.number("buffer_m") else { throw .corridorWithoutBuffer(field: sizes.path + "buffer_m") }
            return .corridor(line: line, bufferMeters: buffer)
        default:
            throw .unsupportedGeometry(type)
        }
    }

    /// A Polygon's rings: at least the outer one.
    private static func polygon(_ value: JSONValue, field: String) throws(FenceDecodingError) -> PolygonRings {
        guard case let .array(rings) = value else {
            throw .wrongType(field: field, expected: "an array of rings", got: value.kindName)
        }
        guard let outer = rings.first else {
            throw .wrongType(field: field, expected: "an array of rings", got: "an empty array")
        }
        var holes: [[Coordinate]] = []
        for (k, hole) in rings.enumerated().dropFirst() { holes.append(try FenceFields.ring(hole, field: "\(field)[\(k)]")) }
        return PolygonRings(outer: try FenceFields.ring(outer, field: "\(field)[0]"), holes: holes)
    }

    private static func refuseSizes(_ sizes: FenceFields, shape: String) throws(FenceDecodingError) {
        for key in ["radius", "buffer_m"] where sizes.has(key) { throw .keyNotForShape(key: key, shape: shape) }
    }
}
