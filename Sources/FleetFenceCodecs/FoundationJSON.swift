import Foundation

/// `JSONSerialization`, and the questions its `Any` results need answered: the reference position
/// decoder, which the byte scanner must agree with. Fences are read with `JSONParser`.
enum FoundationJSON {
    /// The parsed value, or the parser's own explanation of why the bytes are not JSON.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<Any, Failure> {
        do {
            return .success(try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]))
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            return .failure(Failure(detail: detail ?? "\(error)"))
        }
    }

    /// JSONSerialization's own words; unlike `JSONSyntaxError`, no offset.
    struct Failure: Error {
        var detail: String
    }

    /// The class `JSONSerialization` uses for `true` and `false`. An `NSNumber` of it must not count as a
    /// number, although `as? Double` would happily convert it (and `as? Bool` converts 0 and 1 the other way).
    private static let booleanClass: ObjectIdentifier = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// The kinds of JSON value, with `true`/`false` told apart from numbers.
    enum Kind {
        case null, bool(Bool), number(Double), string(String), array([Any]), object([String: Any])
    }

    static func kind(of value: Any) -> Kind {
        // Containers first: asking whether a Swift dictionary or array is an NSNumber bridges the
        // whole container to Foundation's class to find out, which made a file of 100,000 fences
        // take seconds to read.
        switch value {
        case let object as [String: Any]: return .object(object)
        case let array as [Any]: return .array(array)
        case let text as String: return .string(text)
        case is NSNull: return .null
        case let number as NSNumber:
            if ObjectIdentifier(type(of: number)) == booleanClass { return .bool(number.boolValue) }
            return .number(number.doubleValue)
        default: return .null  // JSONSerialization produces nothing else.
        }
    }
}
