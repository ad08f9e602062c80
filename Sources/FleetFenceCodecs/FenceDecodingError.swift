/// Why a fence definition could not be decoded. Geometry (ranges, radius, polygon shape, dwell) is checked
/// later by the engine (`FenceError`); this is about the JSON itself. `description` is the published reason.
public enum FenceDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooLarge(bytes: Int)
    /// Not parseable as JSON (a number too large for a `Double`, such as `1e999`, is reported here).
    case notJSON(detail: String)
    /// `found` names what was there ("an array", ...).
    case notAnObject(field: String, found: String)
    case missingField(String)
    case wrongType(field: String, expected: String, got: String)
    /// The payload's `id` differs from the one in the topic it was sent to.
    case idMismatch(topic: String, payload: String)
    /// A GeoJSON Feature whose `id` and `properties.id` differ.
    case conflictingIDs(feature: String, properties: String)
    /// An id that cannot be a topic level (`TopicLevel`).
    case invalidID(String)
    /// More than one of a circle (`lat`/`lon`/`radius`), a `polygon` and a `geometry`.
    case bothShapes
    /// Neither a circle, a polygon nor a geometry.
    case noShape
    /// `radius` or `buffer_m` with a shape it does not belong to (`shape` names the shape).
    case keyNotForShape(key: String, shape: String)
    /// A LineString without `buffer_m` (`field` is where it was looked for).
    case corridorWithoutBuffer(field: String)
    /// A time that is not RFC 3339 (`expires_at`).
    case invalidTime(field: String, value: String)
    /// A GeoJSON Feature with `lat`, `lon` or `polygon` in its properties: its shape belongs in `geometry`.
    case shapeInProperties(String)
    case badPosition(field: String, detail: String)
    case invalidNotify(String)
    /// A `type` other than `Feature` (or `FeatureCollection` for a fences file).
    case unsupportedType(String)
    case unsupportedGeometry(String)
    /// The same id twice in one fences file (the later feature is rejected).
    case duplicateID(String)

    public var description: String {
        switch self {
        case let .tooLarge(bytes): "fence definition is \(bytes) bytes, more than the \(FenceDecoder.maxDefinitionBytes) allowed"
        case let .notJSON(detail): "fence definition is not valid JSON: \(detail)"
        case let .notAnObject(field, found): "\(field) must be a JSON object, not \(found)"
        case let .missingField(field): "missing field \"\(field)\""
        case let .wrongType(field, expected, got): "field \"\(field)\" must be \(expected), not \(got)"
        case let .idMismatch(topic, payload): "id \"\(payload)\" differs from the fence id \"\(topic)\" its topic or path names"
        case let .conflictingIDs(feature, properties):
            "feature id \"\(feature)\" differs from properties.id \"\(properties)\""
        case let .invalidID(id): TopicLevel.problem(id, kind: "fence id") ?? "fence id \"\(id)\" cannot be a topic level"
        case .bothShapes: "give one shape: a circle (lat, lon, radius), a polygon or a geometry"
        case .noShape: "no shape: give lat, lon and radius for a circle, polygon, or a GeoJSON geometry"
        case let .keyNotForShape(key, shape): "\(key) does not belong to a \(shape) (radius is a Point's, buffer_m a LineString's)"
        case let .corridorWithoutBuffer(field):
            "a LineString is a corridor and needs \(field), its half-width in metres"
        case let .invalidTime(field, value): "\(field) \"\(value)\" is not an RFC 3339 time (such as 2026-12-01T00:00:00Z)"
        case let .shapeInProperties(key): "properties.\(key) is not allowed: a Feature's shape is its geometry"
        case let .badPosition(field, detail): "\(field) is not a [lon, lat] position: \(detail)"
        case let .invalidNotify(value): "notify value \"\(value)\" is not one of enter, exit, dwell"
        case let .unsupportedType(type): "type \"\(type)\" is not supported here"
        case let .unsupportedGeometry(type): "geometry type \"\(type)\" is not supported (use Point, Polygon, MultiPolygon or LineString)"
        case let .duplicateID(id): "fence id \"\(id)\" is defined more than once"
        }
    }
}

/// A rejected feature of a fences file: where it is, and why.
public struct FenceFeatureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Position in `features`, from 0.
    public var index: Int
    /// The feature's id when it could be read.
    public var id: String?
    public var error: FenceDecodingError

    public init(index: Int, id: String?, error: FenceDecodingError) {
        self.index = index
        self.id = id
        self.error = error
    }

    public var description: String {
        let which = id.map { "features[\(index)] (id \"\($0)\")" } ?? "features[\(index)]"
        return "\(which): \(error)"
    }
}
