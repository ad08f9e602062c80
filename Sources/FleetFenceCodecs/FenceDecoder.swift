import Foundation
import GeofenceEngine

/// Fence definitions in: `<prefix>/fences/<id>/set` payloads and the `fences.geojson` file (docs/topics-and-payloads.md "Fences").
///
/// A definition is either a plain object with docs/topics-and-payloads.md "Fences" keys (`id`, `name`, `description`, and for the
/// shape `lat`, `lon`, `radius`, or `polygon` as `[[lon, lat], ...]`, or `geometry`, a GeoJSON geometry with
/// `radius` or `buffer_m` beside it; then `notify`, `dwell_s`, `devices`, `speed_limit_kmh`, `expires_at`) or a
/// GeoJSON Feature whose geometry is a Point (with `properties.radius`), a Polygon (first ring outer, further
/// rings holes), a MultiPolygon or a LineString (with `properties.buffer_m`), and whose properties carry the
/// other keys. A Feature's id is `properties.id`, else its own `id`. Unknown keys are ignored (GeoJSON tools
/// add styling properties); `null` counts as absent.
///
/// Only the JSON is checked here. Coordinate ranges, radius, rings, buffer, dwell, patterns and limits are the
/// engine's (`FenceError`); `JSONParser` already refuses numbers that are not finite.
public enum FenceDecoder {
    /// Larger `set` payloads are rejected before parsing.
    public static let maxDefinitionBytes = 1 << 20

    // MARK: One definition

    /// Decodes a `set` payload. With `idFromTopic`, a payload without `id` takes it, and one with another
    /// `id` is rejected.
    public static func decodeDefinition(
        _ payload: UnsafeRawBufferPointer, idFromTopic: String?
    ) throws(FenceDecodingError) -> FenceDefinition {
        guard payload.count <= maxDefinitionBytes else { throw .tooLarge(bytes: payload.count) }
        return try decodeDefinition(parse(payload), idFromTopic: idFromTopic)
    }

    /// Decodes a definition already parsed (a journal record's).
    public static func decodeDefinition(_ value: JSONValue, idFromTopic: String?) throws(FenceDecodingError) -> FenceDefinition {
        guard case let .object(object) = value else { throw .notAnObject(field: "the payload", found: value.kindName) }
        let type = try FenceFields(object).string("type")
        switch type {
        case nil: return try plain(object, idFromTopic: idFromTopic)
        case "Feature": return try feature(object, idFromTopic: idFromTopic)
        case let other?: throw .unsupportedType(other)
        }
    }

    public static func decodeDefinition(_ payload: [UInt8], idFromTopic: String?) throws(FenceDecodingError) -> FenceDefinition {
        try withBytes(payload) { (bytes) throws(FenceDecodingError) in try decodeDefinition(bytes, idFromTopic: idFromTopic) }
    }

    public static func decodeDefinition(_ payload: Data, idFromTopic: String?) throws(FenceDecodingError) -> FenceDefinition {
        try decodeDefinition([UInt8](payload), idFromTopic: idFromTopic)
    }

    // MARK: A fences file

    /// Decodes a FeatureCollection. The whole file fails only when it is not a FeatureCollection; otherwise
    /// every feature gets its own result, in order, and a repeated id is an error for the later feature.
    public static func decodeCollection(_ data: Data) throws(FenceDecodingError) -> [Result<FenceDefinition, FenceFeatureError>] {
        if let apart = data.withUnsafeBytes({ decodeApart($0) }) { return apart }
        return try decodeWhole(data)
    }

    /// The collection parsed as one document: what every file decodes to, and what reports a file
    /// that does not parse, with the line and column.
    static func decodeWhole(_ data: Data) throws(FenceDecodingError) -> [Result<FenceDefinition, FenceFeatureError>] {
        let parsed: JSONValue
        switch data.withUnsafeBytes({ JSONParser.parse($0) }) {
        case let .success(value): parsed = value
        case let .failure(error): throw .notJSON(detail: error.detail + lineAndColumn(of: error.offset, in: data))
        }
        guard case let .object(object) = parsed else { throw .notAnObject(field: "the payload", found: parsed.kindName) }
        let top = FenceFields(object)
        switch try top.string("type") {
        case "FeatureCollection": break
        case nil: throw .missingField("type")
        case let other?: throw .unsupportedType(other)
        }
        guard let featuresValue = top.value("features") else { throw .missingField("features") }
        guard case let .array(features) = featuresValue else {
            throw .wrongType(field: "features", expected: "an array", got: featuresValue.kindName)
        }
        var decoded = features.indices.concurrentMap { index in fileFeature(features[index], index: index) }
        refuseRepeatedIDs(&decoded) { index in
            if case let .object(object) = features[index] { bestEffortID(object) } else { nil }
        }
        return decoded
    }

    /// The collection with each feature parsed and decoded on every core (`FeatureRanges`); nil
    /// when the document is not the plain case or does not parse, which the whole parse then
    /// reports as before. Under perf, a fresh start with 100,000 fences began building them 0.25 s
    /// after it started, against 0.50 s with the file parsed whole (docs/performance.md).
    static func decodeApart(_ bytes: UnsafeRawBufferPointer) -> [Result<FenceDefinition, FenceFeatureError>]? {
        guard let ranges = FeatureRanges.find(bytes) else { return nil }
        // The document without its features. Only the plain case goes on; what is wrong with any
        // other is `decodeWhole`'s to say, so these checks need not name it.
        var rest: [UInt8] = []
        rest.reserveCapacity(bytes.count - (ranges.close - ranges.open - 1))
        rest += bytes[..<(ranges.open + 1)]
        rest += bytes[ranges.close...]
        guard case let .success(.object(object)) = JSONParser.parse(rest) else { return nil }
        let top = FenceFields(object)
        guard (try? top.string("type")) == "FeatureCollection", case .array? = top.value("features") else { return nil }
        let shared = SharedBytes(bytes: bytes)
        let elements = ranges.elements
        var decoded = elements.indices.concurrentMap { index -> Result<FenceDefinition, FenceFeatureError> in
            switch JSONParser.parse(shared.bytes(elements[index])) {
            case let .success(value): fileFeature(value, index: index)
            // Marked, and the whole document parsed instead, for the error's line and column.
            case let .failure(error): .failure(FenceFeatureError(index: index, id: nil, error: .notJSON(detail: error.detail)))
            }
        }
        let unparsed = decoded.contains { result in
            if case let .failure(problem) = result, case .notJSON = problem.error { true } else { false }
        }
        guard !unparsed else { return nil }
        refuseRepeatedIDs(&decoded) { index in
            if case let .success(.object(object)) = JSONParser.parse(shared.bytes(elements[index])) { bestEffortID(object) } else { nil }
        }
        return decoded
    }

    /// A repeated id is an error for the later feature, in order.
    private static func refuseRepeatedIDs(
        _ decoded: inout [Result<FenceDefinition, FenceFeatureError>], idOfFeature: (Int) -> String?
    ) {
        var seen = Set<ExactID>()
        seen.reserveCapacity(decoded.count)
        for index in decoded.indices {
            guard case let .success(definition) = decoded[index], !seen.insert(ExactID(definition.id)).inserted else { continue }
            decoded[index] = .failure(FenceFeatureError(index: index, id: idOfFeature(index), error: .duplicateID(definition.id)))
        }
    }

    /// The file's bytes, read by every core while `decodeApart` waits for them.
    private struct SharedBytes: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer

        func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[range])
        }
    }

    /// One feature of a FeatureCollection, its id not yet compared with the others'.
    private static func fileFeature(_ value: JSONValue, index: Int) -> Result<FenceDefinition, FenceFeatureError> {
        guard case let .object(featureObject) = value else {
            return .failure(FenceFeatureError(
                index: index, id: nil, error: .notAnObject(field: "features[\(index)]", found: value.kindName)))
        }
        do throws(FenceDecodingError) {
            let type = try FenceFields(featureObject).string("type")
            guard type == "Feature" else {
                throw type.map { .unsupportedType($0) } ?? .missingField("type")
            }
            return .success(try feature(featureObject, idFromTopic: nil))
        } catch {
            return .failure(FenceFeatureError(index: index, id: bestEffortID(featureObject), error: error))
        }
    }

    // MARK: Shapes of definitions

    private static func plain(_ object: JSONObject, idFromTopic: String?) throws(FenceDecodingError) -> FenceDefinition {
        let fields = FenceFields(object)
        let id = try resolveID(payload: fields.string("id"), topic: idFromTopic)
        let shape: FenceShape
        let isCircle = fields.has("lat") || fields.has("lon")
        switch (isCircle, fields.value("polygon"), fields.value("geometry")) {
        case (true, _?, _), (true, _, _?), (false, _?, _?): throw .bothShapes
        case (false, nil, let geometry?): shape = try FenceGeometryDecoding.shape(geometry, field: "geometry", sizes: fields)
        case (false, let polygon?, nil):
            if fields.has("radius") { throw .bothShapes }
            if fields.has("buffer_m") { throw .keyNotForShape(key: "buffer_m", shape: "polygon") }
            shape = .polygon(try FenceFields.ring(polygon, field: "polygon"))
        case (true, nil, nil):
            if fields.has("buffer_m") { throw .keyNotForShape(key: "buffer_m", shape: "circle") }
            let lat = try fields.requiredNumber("lat")
            let lon = try fields.requiredNumber("lon")
            shape = .circle(center: Coordinate(lat: lat, lon: lon), radius: try fields.requiredNumber("radius"))
        case (false, nil, nil):
            if fields.has("radius") { throw .missingField("lat") }
            throw .noShape
        }
        return try definition(id: id, shape: shape, fields)
    }

    private static func feature(_ object: JSONObject, idFromTopic: String?) throws(FenceDecodingError) -> FenceDefinition {
        let feature = FenceFields(object)
        let properties = try propertiesFields(feature)
        for key in ["lat", "lon", "polygon", "geometry"] where properties.has(key) { throw .shapeInProperties(key) }
        let id = try resolveID(payload: featureID(feature, properties), topic: idFromTopic)
        guard let geometry = feature.value("geometry") else { throw .missingField("geometry") }
        let shape = try FenceGeometryDecoding.shape(geometry, field: "geometry", sizes: properties)
        return try definition(id: id, shape: shape, properties)
    }

    /// The keys every definition may carry beside its id and shape.
    private static func definition(id: String, shape: FenceShape, _ fields: FenceFields) throws(FenceDecodingError) -> FenceDefinition {
        FenceDefinition(
            id: id, name: try fields.string("name"), description: try fields.string("description"), shape: shape,
            notify: try fields.notify(), dwellSeconds: try fields.number("dwell_s"),
            devices: try fields.strings("devices") ?? FenceDefinition.everyDevice,
            speedLimitKmh: try fields.number("speed_limit_kmh"), expiresAt: try fields.time("expires_at"))
    }

    // MARK: Pieces

    private static func parse(_ payload: UnsafeRawBufferPointer) throws(FenceDecodingError) -> JSONValue {
        switch JSONParser.parse(payload) {
        case let .success(value): return value
        case let .failure(error): throw .notJSON(detail: error.detail)
        }
    }

    private static func propertiesFields(_ feature: FenceFields) throws(FenceDecodingError) -> FenceFields {
        guard let value = feature.value("properties") else { return FenceFields(JSONObject(), path: "properties.") }
        guard case let .object(object) = value else { throw .notAnObject(field: "properties", found: value.kindName) }
        return FenceFields(object, path: "properties.")
    }

    /// `properties.id`, or the Feature's own `id` (a string, or a number as GeoJSON allows); both must agree.
    private static func featureID(_ feature: FenceFields, _ properties: FenceFields) throws(FenceDecodingError) -> String? {
        let fromProperties = try properties.string("id")
        var fromFeature: String?
        if let value = feature.value("id") {
            guard let text = featureIDText(value) else {
                throw .wrongType(field: "id", expected: "a string or a number", got: value.kindName)
            }
            fromFeature = text
        }
        if let fromProperties, let fromFeature, fromProperties != fromFeature {
            throw .conflictingIDs(feature: fromFeature, properties: fromProperties)
        }
        return fromProperties ?? fromFeature
    }

    private static func resolveID(payload: String?, topic: String?) throws(FenceDecodingError) -> String {
        // By their bytes: a canonically equal spelling is another id (docs/operations.md "Limits and failures").
        if let payload, let topic, !payload.utf8.elementsEqual(topic.utf8) { throw .idMismatch(topic: topic, payload: payload) }
        guard let id = payload ?? topic else { throw .missingField("id") }
        guard TopicLevel.forbidden(in: id) == nil else { throw .invalidID(id) }
        return id
    }

    /// " (line L, column C)" of a byte offset: a file's reader opens it in an editor, not a hex dump.
    private static func lineAndColumn(of offset: Int, in data: Data) -> String {
        var line = 1
        var lineStart = 0
        for (index, byte) in data.prefix(offset).enumerated() where byte == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        return " (line \(line), column \(offset - lineStart + 1))"
    }

    /// A feature's id for error reports, read without failing.
    private static func bestEffortID(_ object: JSONObject) -> String? {
        if case let .object(properties)? = object["properties"], case let .string(id)? = properties["id"] { return id }
        return object["id"].flatMap(featureIDText)
    }

    /// A Feature's own `id` as text: a string, or a number as GeoJSON allows (`42`, not `42.0`).
    private static func featureIDText(_ value: JSONValue) -> String? {
        switch value {
        case let .string(text): return text
        case let .number(x):
            var text: [UInt8] = []
            JSONWriter.appendNumber(x, to: &text)
            return String(decoding: text, as: UTF8.self)
        default: return nil
        }
    }

    private static func withBytes<R>(
        _ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(FenceDecodingError) -> R
    ) throws(FenceDecodingError) -> R {
        let result: Result<R, FenceDecodingError> = bytes.withUnsafeBytes { raw in
            do throws(FenceDecodingError) { return .success(try body(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }
}
