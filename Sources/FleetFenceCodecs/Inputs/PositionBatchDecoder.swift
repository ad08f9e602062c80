/// The body of `POST /api/positions` (docs/trackers.md "Connecting trackers"): one native payload or a JSON
/// array of at most ``maxElements``, each naming its device in `id`. A bad element is rejected
/// alone, also one whose JSON the strict parser refuses though it follows the grammar (a repeated
/// key, a lone surrogate, a number too large); only a body that is not JSON, not an object or
/// array, or too long fails as a whole.
public enum PositionBatchDecoder {
    public static let maxElements = 10_000

    /// Every element's position or rejection, in order; or why the body as a whole is refused.
    public static func decode(_ body: [UInt8]) -> Result<[Result<ForeignPosition, PositionRejection>], PositionRejection> {
        switch JSONParser.parse(body) {
        case let .failure(error):
            // JSON by the grammar, refused for what it says: an array is read element by element.
            if let grammar = JSONParser.grammarError(body) { return .failure(.notJSON(detail: grammar.detail)) }
            guard let ranges = elementRanges(body) else { return .failure(.notJSON(detail: error.detail)) }
            return decode(body, elements: ranges)
        case let .success(.array(elements)):
            guard elements.count <= maxElements else { return .failure(.tooManyElements(count: elements.count, limit: maxElements)) }
            return .success(elements.map(decode(element:)))
        case let .success(value):
            guard case .object = value else { return .failure(.notAnObject(found: value.kind.name)) }
            return .success([decode(element: value)])
        }
    }

    /// An array that follows the grammar but that the strict parser refused as a whole, read element
    /// by element: an element refused for what it says is rejected alone, with the reason it would
    /// get on its own topic.
    private static func decode(_ body: [UInt8], elements ranges: [Range<Int>]) -> Result<[Result<ForeignPosition, PositionRejection>], PositionRejection> {
        guard ranges.count <= maxElements else { return .failure(.tooManyElements(count: ranges.count, limit: maxElements)) }
        var decoded: [Result<ForeignPosition, PositionRejection>] = []
        decoded.reserveCapacity(ranges.count)
        for range in ranges {
            switch body.withUnsafeBytes({ JSONParser.parse(UnsafeRawBufferPointer(rebasing: $0[range])) }) {
            case let .success(element): decoded.append(decode(element: element))
            case let .failure(error): decoded.append(.failure(.notJSON(detail: error.detail)))
            }
        }
        return .success(decoded)
    }

    /// The byte ranges of a top-level array's elements, told apart by brackets, strings and commas
    /// only, in a body that follows the grammar; `nil` unless the body is an array.
    static func elementRanges(_ body: [UInt8]) -> [Range<Int>]? {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
        guard let open = body.firstIndex(where: { !isSpace($0) }), body[open] == UInt8(ascii: "[") else { return nil }
        var ranges: [Range<Int>] = []
        var start: Int?  // the current element's first byte
        var end = 0  // one past its last byte that is not whitespace
        var depth = 0
        var i = open + 1
        while i < body.count {
            let b = body[i]
            if depth == 0, b == UInt8(ascii: ",") || b == UInt8(ascii: "]") {
                if let start { ranges.append(start..<end) }
                if b == UInt8(ascii: "]") { return ranges }
                start = nil
            } else if !isSpace(b) {
                if start == nil { start = i }
                switch b {
                case UInt8(ascii: "\""):
                    // To the closing quote: a bracket or comma in a string is text.
                    i += 1
                    while i < body.count, body[i] != UInt8(ascii: "\"") { i += body[i] == UInt8(ascii: "\\") ? 2 : 1 }
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                default: break
                }
                end = i + 1
            }
            i += 1
        }
        return nil
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
