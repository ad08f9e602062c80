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
            guard error.grammatical, let ranges = elementRanges(body) else { return .failure(.notJSON(detail: error.detail)) }
            return decode(body, elements: ranges)
        case let .success(.array(elements)):
            guard elements.count <= maxElements else { return .failure(.tooManyElements(count: elements.count, limit: maxElements)) }
            return .success(elements.map(decode(element:)))
        case let .success(value):
            guard case .object = value else { return .failure(.notAnObject(found: value.kind.name)) }
            return .success([decode(element: value)])
        }
    }

    /// An array the strict parser refused as a whole, read element by element: an element refused
    /// for what it says is rejected alone, with the reason it would get on its own topic; one that
    /// breaks the grammar makes the body not JSON.
    private static func decode(_ body: [UInt8], elements ranges: [Range<Int>]) -> Result<[Result<ForeignPosition, PositionRejection>], PositionRejection> {
        guard ranges.count <= maxElements else { return .failure(.tooManyElements(count: ranges.count, limit: maxElements)) }
        var decoded: [Result<ForeignPosition, PositionRejection>] = []
        decoded.reserveCapacity(ranges.count)
        for (index, range) in ranges.enumerated() {
            switch body.withUnsafeBytes({ JSONParser.parse(UnsafeRawBufferPointer(rebasing: $0[range])) }) {
            case let .success(element): decoded.append(decode(element: element))
            case let .failure(error) where error.grammatical: decoded.append(.failure(.notJSON(detail: error.detail)))
            case let .failure(error): return .failure(.notJSON(detail: "element \(index) (from byte \(range.lowerBound)): \(error.detail)"))
            }
        }
        return .success(decoded)
    }

    /// The byte ranges of a top-level array's elements, told apart by brackets, strings and commas
    /// only (each element is parsed after); `nil` unless the body is such an array, one value
    /// between each two commas, with nothing but whitespace after it.
    static func elementRanges(_ body: [UInt8]) -> [Range<Int>]? {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
        var i = 0
        while i < body.count, isSpace(body[i]) { i += 1 }
        guard i < body.count, body[i] == UInt8(ascii: "[") else { return nil }
        i += 1
        var ranges: [Range<Int>] = []
        var start: Int?  // the current element's first byte
        var end = i  // one past its last byte that is not whitespace
        var ended = false  // its value is complete: only a comma or the array's end may follow
        var depth = 0
        while i < body.count {
            let b = body[i]
            if isSpace(b) {
                if depth == 0, start != nil { ended = true }
                i += 1
                continue
            }
            // At the array's level, a second value in one element is the grammar's error.
            if depth == 0, ended, b != UInt8(ascii: ","), b != UInt8(ascii: "]") { return nil }
            let delimiter = b == UInt8(ascii: ",") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}")
            if depth == 0, start == nil, !delimiter { start = i }
            switch b {
            case UInt8(ascii: "\""):
                // A string, escapes and all: a bracket or comma in it is text.
                i += 1
                while i < body.count, body[i] != UInt8(ascii: "\"") { i += body[i] == UInt8(ascii: "\\") ? 2 : 1 }
                guard i < body.count else { return nil }
                if depth == 0 { ended = true }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"):
                if depth > 0 {
                    if b != UInt8(ascii: ",") {
                        depth -= 1
                        if depth == 0 { ended = true }
                    }
                    break
                }
                // At the array's level: an element ends (a `}` here is the grammar's error).
                if b == UInt8(ascii: "}") { return nil }
                if let start {
                    ranges.append(start..<end)
                } else if b == UInt8(ascii: ",") || !ranges.isEmpty {
                    return nil  // an empty element: `[,`, `,,` or `,]`
                }
                (start, ended) = (nil, false)
                if b == UInt8(ascii: "]") {
                    i += 1
                    while i < body.count, isSpace(body[i]) { i += 1 }
                    return i == body.count ? ranges : nil
                }
            default:
                break
            }
            i += 1
            if start != nil { end = i }
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
