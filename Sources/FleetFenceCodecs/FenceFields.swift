import Foundation
import GeofenceEngine

/// Typed access to one JSON object of a fence definition, naming fields by their path in errors
/// (`properties.radius`, `polygon[3]`). A key holding `null` counts as absent.
struct FenceFields {
    let object: [String: Any]
    /// Prepended to key names in errors: "" or "properties.".
    let path: String

    init(_ object: [String: Any], path: String = "") {
        self.object = object
        self.path = path
    }

    func has(_ key: String) -> Bool {
        value(key) != nil
    }

    func value(_ key: String) -> Any? {
        guard let value = object[key] else { return nil }
        if case .null = FoundationJSON.kind(of: value) { return nil }
        return value
    }

    func string(_ key: String) throws(FenceDecodingError) -> String? {
        guard let value = value(key) else { return nil }
        guard case let .string(text) = FoundationJSON.kind(of: value) else {
            throw .wrongType(field: path + key, expected: "a string", got: FoundationJSON.kindName(of: value))
        }
        return text
    }

    func number(_ key: String) throws(FenceDecodingError) -> Double? {
        guard let value = value(key) else { return nil }
        guard case let .number(x) = FoundationJSON.kind(of: value) else {
            throw .wrongType(field: path + key, expected: "a number", got: FoundationJSON.kindName(of: value))
        }
        return x
    }

    func requiredNumber(_ key: String) throws(FenceDecodingError) -> Double {
        guard let x = try number(key) else { throw .missingField(path + key) }
        return x
    }

    /// `notify`: an array of "enter", "exit", "dwell"; absent means the default.
    func notify() throws(FenceDecodingError) -> Set<AlertEvent>? {
        guard let value = value("notify") else { return nil }
        guard case let .array(items) = FoundationJSON.kind(of: value) else {
            throw .wrongType(field: path + "notify", expected: "an array of strings", got: FoundationJSON.kindName(of: value))
        }
        var events = Set<AlertEvent>()
        for (i, item) in items.enumerated() {
            guard case let .string(text) = FoundationJSON.kind(of: item) else {
                throw .wrongType(field: "\(path)notify[\(i)]", expected: "a string", got: FoundationJSON.kindName(of: item))
            }
            guard let event = AlertEvent(rawValue: text) else { throw .invalidNotify(text) }
            events.insert(event)
        }
        return events
    }

    /// A ring of `[lon, lat]` positions (a third number, altitude, is allowed and ignored).
    static func ring(_ value: Any, field: String) throws(FenceDecodingError) -> [Coordinate] {
        guard case let .array(items) = FoundationJSON.kind(of: value) else {
            throw .wrongType(field: field, expected: "an array of [lon, lat] positions", got: FoundationJSON.kindName(of: value))
        }
        var ring: [Coordinate] = []
        ring.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            ring.append(try position(item, field: "\(field)[\(i)]"))
        }
        return ring
    }

    static func position(_ value: Any, field: String) throws(FenceDecodingError) -> Coordinate {
        guard case let .array(items) = FoundationJSON.kind(of: value) else {
            throw .badPosition(field: field, detail: "it is \(FoundationJSON.kindName(of: value))")
        }
        guard items.count >= 2 else {
            throw .badPosition(field: field, detail: "it has \(items.count) element\(items.count == 1 ? "" : "s")")
        }
        var numbers: [Double] = []
        for (i, item) in items.enumerated() {
            guard case let .number(x) = FoundationJSON.kind(of: item) else {
                throw .badPosition(field: field, detail: "element \(i) is \(FoundationJSON.kindName(of: item))")
            }
            numbers.append(x)
        }
        return Coordinate(lat: numbers[1], lon: numbers[0])
    }
}
