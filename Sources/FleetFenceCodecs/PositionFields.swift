/// The text of a JSON string as one of the two parsers holds it: bytes inside the payload (fast path)
/// or a `String` (the parser's reference path). Validation is written once, over this.
protocol PositionText {
    /// Equality as Swift `String` defines it (canonical equivalence), which is what the reference path uses.
    func equals(_ other: String) -> Bool
    /// The UTF-8 bytes, for parsers that work on bytes (RFC 3339).
    func withUTF8Bytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R
    var string: String { get }
}

extension UnsafeRawBufferPointer: PositionText {
    func equals(_ other: String) -> Bool {
        let bytewise = other.utf8.withContiguousStorageIfAvailable { other in
            other.count == count && (count == 0 || memcmpEqual(baseAddress!, UnsafeRawPointer(other.baseAddress!), count))
        }
        if bytewise == true { return true }
        // Different bytes can still be equal strings (e.g. "\u{212A}" == "K"): decide as the reference does.
        return string == other
    }

    func withUTF8Bytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R { body(self) }

    var string: String { String(decoding: self, as: UTF8.self) }
}

extension String: PositionText {
    func equals(_ other: String) -> Bool { self == other }

    func withUTF8Bytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var copy = self
        return copy.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    var string: String { self }
}

@inline(__always)
private func memcmpEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    for i in 0..<count where a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) {
        return false
    }
    return true
}

/// One JSON value of a position payload, as far as validation cares: its number or text, null
/// (taken as absent), or the kind of anything else, which validation only names.
enum RawValue<Text: PositionText> {
    case null
    case number(Double)
    case string(Text)
    /// A boolean, an array or an object.
    case other(JSONKind)

    /// What the reference parser read, reduced to what validation looks at.
    init(_ value: JSONValue) where Text == String {
        self = switch value {
        case .null: .null
        case let .number(x): .number(x)
        case let .string(text): .string(text)
        default: .other(value.kind)
        }
    }

    var kind: JSONKind {
        switch self {
        case .null: .null
        case .number: .number
        case .string: .string
        case let .other(kind): kind
        }
    }

    /// The JSON type's name, for error messages.
    var kindName: String { kind.nameWithArticle }
}

/// The keys any position dialect reads. Everything else in a payload is ignored.
enum PositionKey: CaseIterable {
    case lat, lon, latitude, longitude, ts, tst, acc, gpsAccuracy, spd, hdg, vel, cog, id, type

    /// The key as it is spelled in JSON.
    var name: String {
        switch self {
        case .lat: "lat"
        case .lon: "lon"
        case .latitude: "latitude"
        case .longitude: "longitude"
        case .ts: "ts"
        case .tst: "tst"
        case .acc: "acc"
        case .gpsAccuracy: "gps_accuracy"
        case .spd: "spd"
        case .hdg: "hdg"
        case .vel: "vel"
        case .cog: "cog"
        case .id: "id"
        case .type: "_type"
        }
    }
}

/// The known fields of one payload; `nil` means the key was absent. Neither reader lets a repeated key
/// through: `JSONParser` refuses it and the scanner gives up on it.
struct PositionFields<Text: PositionText> {
    var lat: RawValue<Text>?
    var lon: RawValue<Text>?
    var latitude: RawValue<Text>?
    var longitude: RawValue<Text>?
    var ts: RawValue<Text>?
    var tst: RawValue<Text>?
    var acc: RawValue<Text>?
    var gpsAccuracy: RawValue<Text>?
    var spd: RawValue<Text>?
    var hdg: RawValue<Text>?
    /// OwnTracks' speed (km/h) and course (degrees).
    var vel: RawValue<Text>?
    var cog: RawValue<Text>?
    var id: RawValue<Text>?
    var type: RawValue<Text>?

    init() {}

    subscript(key: PositionKey) -> RawValue<Text>? {
        get {
            switch key {
            case .lat: lat
            case .lon: lon
            case .latitude: latitude
            case .longitude: longitude
            case .ts: ts
            case .tst: tst
            case .acc: acc
            case .gpsAccuracy: gpsAccuracy
            case .spd: spd
            case .hdg: hdg
            case .vel: vel
            case .cog: cog
            case .id: id
            case .type: type
            }
        }
        set {
            switch key {
            case .lat: lat = newValue
            case .lon: lon = newValue
            case .latitude: latitude = newValue
            case .longitude: longitude = newValue
            case .ts: ts = newValue
            case .tst: tst = newValue
            case .acc: acc = newValue
            case .gpsAccuracy: gpsAccuracy = newValue
            case .spd: spd = newValue
            case .hdg: hdg = newValue
            case .vel: vel = newValue
            case .cog: cog = newValue
            case .id: id = newValue
            case .type: type = newValue
            }
        }
    }
}
