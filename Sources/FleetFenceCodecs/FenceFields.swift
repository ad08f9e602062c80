import GeofenceEngine

/// Typed access to one JSON object of a fence definition, naming fields by their path in errors
/// (`properties.radius`, `polygon[3]`). A key holding `null` counts as absent.
struct FenceFields {
    let object: JSONObject
    /// Prepended to key names in errors: "" or "properties.".
    let path: String

    init(_ object: JSONObject, path: String = "") {
        self.object = object
        self.path = path
    }

    func has(_ key: String) -> Bool {
        value(key) != nil
    }

    func value(_ key: String) -> JSONValue? {
        guard let value = object[key] else { return nil }
        if case .null = value { return nil }
        return value
    }

    /// The value of `key` as `extract` reads it, `nil` when absent, or `wrongType` saying what was
    /// `expected`: how every typed getter here treats its key.
    private func typed<T>(_ key: String, expected: String, _ extract: (JSONValue) -> T?) throws(FenceDecodingError) -> T? {
        guard let value = value(key) else { return nil }
        guard let typed = extract(value) else {
            throw .wrongType(field: path + key, expected: expected, got: value.kindName)
        }
        return typed
    }

    private static func text(_ value: JSONValue) -> String? {
        if case let .string(text) = value { text } else { nil }
    }

    private static func items(_ value: JSONValue) -> [JSONValue]? {
        if case let .array(items) = value { items } else { nil }
    }

    func string(_ key: String) throws(FenceDecodingError) -> String? {
        try typed(key, expected: "a string", Self.text)
    }

    func number(_ key: String) throws(FenceDecodingError) -> Double? {
        try typed(key, expected: "a number") { if case let .number(x) = $0 { x } else { nil } }
    }

    func requiredNumber(_ key: String) throws(FenceDecodingError) -> Double {
        guard let x = try number(key) else { throw .missingField(path + key) }
        return x
    }

    func bool(_ key: String) throws(FenceDecodingError) -> Bool? {
        try typed(key, expected: "true or false") { if case let .bool(flag) = $0 { flag } else { nil } }
    }

    /// An array of strings (`devices`, `stops`).
    func strings(_ key: String) throws(FenceDecodingError) -> [String]? {
        guard let items = try typed(key, expected: "an array of strings", Self.items) else { return nil }
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case let .string(text) = item else {
                throw .wrongType(field: "\(path)\(key)[\(i)]", expected: "a string", got: item.kindName)
            }
            strings.append(text)
        }
        return strings
    }

    /// An RFC 3339 time, as seconds since the epoch rounded to the millisecond that it is written
    /// back with, so that a definition read, written and read again is the same definition.
    func time(_ key: String) throws(FenceDecodingError) -> Double? {
        guard let text = try typed(key, expected: "an RFC 3339 time string", Self.text) else { return nil }
        guard let seconds = RFC3339.parse(text), let exact = RFC3339.parse(RFC3339.format(seconds)) else {
            throw .invalidTime(field: path + key, value: String(text.prefix(64)))
        }
        return exact
    }

    /// `notify`: an array of "enter", "exit", "dwell"; absent means the default.
    func notify() throws(FenceDecodingError) -> Set<AlertEvent>? {
        guard let items = try typed("notify", expected: "an array of strings", Self.items) else { return nil }
        var events = Set<AlertEvent>()
        for (i, item) in items.enumerated() {
            guard case let .string(text) = item else {
                throw .wrongType(field: "\(path)notify[\(i)]", expected: "a string", got: item.kindName)
            }
            guard let event = AlertEvent(rawValue: text), AlertEvent.notifiable.contains(event) else {
                throw .invalidNotify(text)
            }
            events.insert(event)
        }
        return events
    }

    /// A ring of `[lon, lat]` positions (a third number, altitude, is allowed and ignored).
    static func ring(_ value: JSONValue, field: String) throws(FenceDecodingError) -> [Coordinate] {
        guard case let .array(items) = value else {
            throw .wrongType(field: field, expected: "an array of [lon, lat] positions", got: value.kindName)
        }
        var ring: [Coordinate] = []
        ring.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            ring.append(try position(item, field: field, index: i))
        }
        return ring
    }

    /// `index`: the position's place in its ring, named only when it is wrong.
    static func position(_ value: JSONValue, field: String, index: Int? = nil) throws(FenceDecodingError) -> Coordinate {
        func place() -> String { index.map { "\(field)[\($0)]" } ?? field }
        guard case let .array(items) = value else {
            throw .badPosition(field: place(), detail: "it is \(value.kindName)")
        }
        guard items.count >= 2 else {
            throw .badPosition(field: place(), detail: "it has \(items.count) element\(items.count == 1 ? "" : "s")")
        }
        var numbers: (Double, Double) = (0, 0)
        for (i, item) in items.enumerated() {
            guard case let .number(x) = item else {
                throw .badPosition(field: place(), detail: "element \(i) is \(item.kindName)")
            }
            if i == 0 { numbers.0 = x } else if i == 1 { numbers.1 = x }
        }
        return Coordinate(lat: numbers.1, lon: numbers.0)
    }
}
