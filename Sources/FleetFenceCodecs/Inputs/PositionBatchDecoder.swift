/// The body of `POST /api/positions` (docs/trackers.md "Connecting trackers"): one native payload or a JSON
/// array of at most ``maxElements``, each naming its device in `id`. A bad element is rejected
/// alone; only a body that is not JSON, not an object or array, or too long fails as a whole.
public enum PositionBatchDecoder {
    public static let maxElements = 10_000

    /// Every element's position or rejection, in order; or why the body as a whole is refused.
    public static func decode(_ body: [UInt8]) -> Result<[Result<ForeignPosition, PositionRejection>], PositionRejection> {
        switch JSONParser.parse(body) {
        case let .failure(error):
            return .failure(.notJSON(detail: error.detail))
        case let .success(.array(elements)):
            guard elements.count <= maxElements else { return .failure(.tooManyElements(count: elements.count, limit: maxElements)) }
            return .success(elements.map(decode(element:)))
        case let .success(value):
            guard case .object = value else { return .failure(.notAnObject(found: value.kind.name)) }
            return .success([decode(element: value)])
        }
    }

    /// A native payload whose `id` names its device: the native validation, `id` required.
    static func decode(element: JSONValue) -> Result<ForeignPosition, PositionRejection> {
        guard case let .object(object) = element else { return .failure(.notAnObject(found: element.kind.name)) }
        let id: String
        do throws(PositionRejection) {
            id = try ForeignFields.deviceID(object["id"], field: "id")
        } catch {
            return .failure(error)
        }
        var fields = PositionFields<String>()
        for key in PositionKey.allCases {
            if let value = object[key.name] { fields[key] = RawValue(value) }
        }
        return PositionValidator.native(fields, deviceID: id).map { ForeignPosition(device: id, position: $0) }
    }
}
