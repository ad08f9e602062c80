/// Why a tour definition could not be decoded; what the engine refuses is a `TourError`.
/// `description` is the reason published on `<prefix>/errors/tours`.
public enum TourDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooLarge(bytes: Int)
    case notJSON(detail: String)
    case notAnObject(found: String)
    case missingField(String)
    case wrongType(field: String, expected: String, got: String)
    /// The payload's `id` differs from the one in the topic it was sent to.
    case idMismatch(topic: String, payload: String)
    /// A tour or stop id that cannot be a topic level (`TopicLevel`).
    case invalidID(String)

    public var description: String {
        switch self {
        case let .tooLarge(bytes): "tour definition is \(bytes) bytes, more than the \(TourDecoder.maxDefinitionBytes) allowed"
        case let .notJSON(detail): "tour definition is not valid JSON: \(detail)"
        case let .notAnObject(found): "the payload must be a JSON object, not \(found)"
        case let .missingField(field): "missing field \"\(field)\""
        case let .wrongType(field, expected, got): "field \"\(field)\" must be \(expected), not \(got)"
        case let .idMismatch(topic, payload): "id \"\(payload)\" differs from the tour id \"\(topic)\" its topic or path names"
        case let .invalidID(id): TopicLevel.problem(id, kind: "id") ?? "id \"\(id)\" cannot be a topic level"
        }
    }
}
