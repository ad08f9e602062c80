/// A custom JSON format (`inputs.mappings`; docs/trackers.md "Connecting trackers"): where a topic's payload
/// keeps the device id, the coordinates and the rest, as JSON Pointers, and in which units.
public struct PositionMapping: Sendable, Hashable {
    public enum DeviceSource: Sendable, Hashable {
        case pointer(JSONPointer)
        /// `topic:N`: the N-th topic level, from 1.
        case topicLevel(Int)
    }

    public enum Coordinates: Sendable, Hashable {
        case separate(lat: JSONPointer, lon: JSONPointer)
        /// `latlon`: one string `"lat,lon"`.
        case combined(JSONPointer)
    }

    public enum TimeUnit: String, Sendable, Hashable, CaseIterable {
        case seconds = "s"
        case milliseconds = "ms"
        case rfc3339
    }

    public var topic: String
    public var id: DeviceSource
    public var coordinates: Coordinates
    public var ts: JSONPointer?
    public var tsUnit: TimeUnit
    public var acc: JSONPointer?
    public var spd: JSONPointer?
    public var spdUnit: SpeedUnit

    static let keys = ["topic", "id", "lat", "lon", "latlon", "ts", "ts_unit", "acc", "spd", "spd_unit"]

    /// One entry of `inputs.mappings`, its values as the YAML scalars' text. Throws a reason naming the key.
    public init(entry: [String: String]) throws(MappingError) {
        if let unknown = entry.keys.sorted().first(where: { !Self.keys.contains($0) }) {
            throw MappingError("unknown key \(unknown) (known: \(Self.keys.joined(separator: ", ")))")
        }
        guard let topic = entry["topic"], !topic.isEmpty else { throw MappingError("topic is required") }
        self.topic = topic
        guard let id = entry["id"] else { throw MappingError("id is required (a JSON Pointer or topic:N)") }
        if id.hasPrefix("topic:") {
            guard let level = Int(id.dropFirst(6)), level >= 1 else {
                throw MappingError("id \(id): topic:N needs a level number from 1")
            }
            // A filter without `#` matches topics of exactly its levels: a level past them would
            // refuse every message.
            let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
            if levels.last != "#", level > levels.count {
                throw MappingError("id \(id): the topics of \(topic) have \(levels.count) levels")
            }
            self.id = .topicLevel(level)
        } else {
            self.id = .pointer(try Self.pointer(entry, "id")!)
        }
        switch (entry["lat"], entry["lon"], entry["latlon"]) {
        case (.some, .some, nil): coordinates = .separate(lat: try Self.pointer(entry, "lat")!, lon: try Self.pointer(entry, "lon")!)
        case (nil, nil, .some): coordinates = .combined(try Self.pointer(entry, "latlon")!)
        default: throw MappingError("needs lat and lon, or latlon alone")
        }
        ts = try Self.pointer(entry, "ts")
        acc = try Self.pointer(entry, "acc")
        spd = try Self.pointer(entry, "spd")
        let tsUnitText = entry["ts_unit"] ?? TimeUnit.seconds.rawValue
        guard let tsUnit = TimeUnit(rawValue: tsUnitText) else {
            throw MappingError("ts_unit \(tsUnitText): expected one of s, ms, rfc3339")
        }
        self.tsUnit = tsUnit
        let spdUnitText = entry["spd_unit"] ?? SpeedUnit.metresPerSecond.rawValue
        guard let spdUnit = SpeedUnit(rawValue: spdUnitText) else {
            throw MappingError("spd_unit \(spdUnitText): expected one of m/s, km/h, knots")
        }
        self.spdUnit = spdUnit
    }

    private static func pointer(_ entry: [String: String], _ key: String) throws(MappingError) -> JSONPointer? {
        guard let text = entry[key] else { return nil }
        guard let pointer = JSONPointer(text) else {
            throw MappingError("\(key) \(text) is not a JSON Pointer (RFC 6901: empty, or /name/0/...)")
        }
        return pointer
    }

    /// The payload of `topic` read through this mapping, with the native limits.
    public func decode(_ payload: UnsafeRawBufferPointer, topic: String) -> Result<ForeignPosition, PositionRejection> {
        guard payload.count <= PositionDecoder.maxPayloadBytes else { return .failure(.tooLarge(bytes: payload.count)) }
        let document: JSONValue
        switch JSONParser.parse(payload) {
        case let .success(value): document = value
        case let .failure(error): return .failure(.notJSON(detail: error.detail))
        }
        do throws(PositionRejection) {
            let device: String
            switch id {
            case let .pointer(pointer):
                device = try ForeignFields.deviceID(pointer.resolve(in: document), field: "id (\(pointer))", numbers: true)
            case let .topicLevel(level):
                let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
                guard level <= levels.count else {
                    throw .badDeviceID("the topic \(topic) has no level \(level) for the device id")
                }
                device = String(levels[level - 1])
                if let problem = DeviceIDRules.problem(device) { throw .badDeviceID(problem) }
            }
            let lat: Double
            let lon: Double
            switch coordinates {
            case let .separate(latPointer, lonPointer):
                lat = try ForeignFields.coordinate(
                    latPointer.resolve(in: document), field: "lat (\(latPointer))", limit: 90, numericStrings: true)
                lon = try ForeignFields.coordinate(
                    lonPointer.resolve(in: document), field: "lon (\(lonPointer))", limit: 180, numericStrings: true)
            case let .combined(pointer):
                (lat, lon) = try Self.latlon(pointer.resolve(in: document), pointer: pointer)
            }
            let time = try ts.flatMap { pointer throws(PositionRejection) in
                try timestamp(pointer.resolve(in: document), field: "ts (\(pointer))")
            }
            let accuracy = try acc.flatMap { pointer throws(PositionRejection) in
                try ForeignFields.accuracy(pointer.resolve(in: document), field: "acc (\(pointer))", numericStrings: true)
            }
            let speed = try spd.flatMap { pointer throws(PositionRejection) in
                try ForeignFields.speed(
                    pointer.resolve(in: document), field: "spd (\(pointer))", factor: spdUnit.factor, numericStrings: true)
            }
            return .success(ForeignPosition(
                device: device, position: DecodedPosition(lat: lat, lon: lon, timestamp: time, accuracy: accuracy, speed: speed)))
        } catch {
            return .failure(error)
        }
    }

    private func timestamp(_ value: JSONValue?, field: String) throws(PositionRejection) -> Double? {
        switch tsUnit {
        case .seconds: try ForeignFields.time(value, field: field, unit: .seconds, numericStrings: true)
        case .milliseconds: try ForeignFields.time(value, field: field, unit: .milliseconds, numericStrings: true)
        case .rfc3339:
            switch value {
            case nil, .null?, .string?: try ForeignFields.time(value, field: field)
            case let other?: throw .wrongType(field: field, expected: "an RFC 3339 string", got: other.kindName)
            }
        }
    }

    private static func latlon(_ value: JSONValue?, pointer: JSONPointer) throws(PositionRejection) -> (Double, Double) {
        let field = "latlon (\(pointer))"
        switch value {
        case nil, .null?: throw .missingField(field)
        case let .string(text)?:
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2 else {
                throw .wrongType(field: field, expected: "a string \"lat,lon\"", got: "\"\(text.prefix(60))\"")
            }
            let lat = try ForeignFields.coordinate(.string(String(parts[0])), field: "lat (latlon \(pointer))", limit: 90, numericStrings: true)
            let lon = try ForeignFields.coordinate(.string(String(parts[1])), field: "lon (latlon \(pointer))", limit: 180, numericStrings: true)
            return (lat, lon)
        case let other?: throw .wrongType(field: field, expected: "a string \"lat,lon\"", got: other.kindName)
        }
    }
}

/// Why an `inputs.mappings` entry cannot be used.
public struct MappingError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension PositionMapping {
    /// The device id of a payload when it is a usable one: where a rejection of its position is answered.
    public func deviceID(in payload: UnsafeRawBufferPointer, topic: String) -> String? {
        let id: String
        switch self.id {
        case let .topicLevel(level):
            let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
            guard level <= levels.count else { return nil }
            id = String(levels[level - 1])
        case let .pointer(pointer):
            guard payload.count <= PositionDecoder.maxPayloadBytes, case let .success(document) = JSONParser.parse(payload),
                let text = try? ForeignFields.deviceID(pointer.resolve(in: document), field: "id", numbers: true)
            else { return nil }
            id = text
        }
        return DeviceIDRules.problem(id) == nil ? id : nil
    }
}
