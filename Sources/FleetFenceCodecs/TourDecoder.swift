import Foundation
import GeofenceEngine

/// Tour definitions in: `<prefix>/tours/<id>/set` payloads and `PUT /api/tours/{id}` bodies (docs/rules.md "Tours").
/// A plain object: `id`, `name`, `devices` (globs, default every device), `stops` (fence ids, in order) and
/// `ordered` (default true). Unknown keys are ignored; `null` counts as absent. Only the JSON is checked here;
/// stops and patterns are the engine's (`TourError`).
public enum TourDecoder {
    public static let maxDefinitionBytes = 1 << 20

    /// With `idFromTopic`, a payload without `id` takes it, and one with another `id` is rejected.
    public static func decodeDefinition(_ payload: [UInt8], idFromTopic: String?) throws(TourDecodingError) -> TourDefinition {
        guard payload.count <= maxDefinitionBytes else { throw .tooLarge(bytes: payload.count) }
        switch JSONParser.parse(payload) {
        case let .success(value): return try decodeDefinition(value, idFromTopic: idFromTopic)
        case let .failure(error): throw .notJSON(detail: error.detail)
        }
    }

    public static func decodeDefinition(_ payload: UnsafeRawBufferPointer, idFromTopic: String?) throws(TourDecodingError) -> TourDefinition {
        try decodeDefinition([UInt8](payload), idFromTopic: idFromTopic)
    }

    public static func decodeDefinition(_ payload: Data, idFromTopic: String?) throws(TourDecodingError) -> TourDefinition {
        try decodeDefinition([UInt8](payload), idFromTopic: idFromTopic)
    }

    /// A definition already parsed (a journal record's).
    public static func decodeDefinition(_ value: JSONValue, idFromTopic: String?) throws(TourDecodingError) -> TourDefinition {
        guard case let .object(object) = value else { throw .notAnObject(found: value.kindName) }
        let fields = FenceFields(object)
        let given: String?, name: String?, stops: [String]?, devices: [String]?, ordered: Bool?
        do throws(FenceDecodingError) {
            given = try fields.string("id")
            name = try fields.string("name")
            stops = try fields.strings("stops")
            devices = try fields.strings("devices")
            ordered = try fields.bool("ordered")
        } catch {
            throw Self.tourError(error)
        }
        // By their bytes: a canonically equal spelling is another id (docs/operations.md "Limits and failures").
        if let given, let idFromTopic, !given.utf8.elementsEqual(idFromTopic.utf8) {
            throw .idMismatch(topic: idFromTopic, payload: given)
        }
        guard let id = given ?? idFromTopic else { throw .missingField("id") }
        guard let stops else { throw .missingField("stops") }
        for candidate in [id] + stops where !isTopicLevel(candidate) { throw .invalidID(candidate) }
        return TourDefinition(id: id, name: name, devices: devices ?? FenceDefinition.everyDevice, stops: stops, ordered: ordered ?? true)
    }

    private static func isTopicLevel(_ id: String) -> Bool {
        TopicLevel.forbidden(in: id) == nil
    }

    /// The field errors `FenceFields` reports, in a tour's words.
    private static func tourError(_ error: FenceDecodingError) -> TourDecodingError {
        switch error {
        case let .wrongType(field, expected, got): .wrongType(field: field, expected: expected, got: got)
        case let .missingField(field): .missingField(field)
        default: .notJSON(detail: error.description)
        }
    }
}
