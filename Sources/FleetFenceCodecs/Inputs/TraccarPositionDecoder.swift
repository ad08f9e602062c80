/// Traccar's forwarded positions (`forward.type=mqtt`; docs/trackers.md "Connecting trackers"):
/// `{"position": {...}, "device": {...}}`. The topic names no device: it is `device.uniqueId`.
/// `position.fixTime` is ISO 8601 (`2026-11-27T10:00:00.000+00:00`; a number is epoch seconds or
/// milliseconds, as OsmAnd's `timestamp`), `accuracy` metres with 0 for
/// unknown, `speed` knots, `course` degrees; `"valid": false` (no fix) is ignored, not an error.
public enum TraccarPositionDecoder {
    public static func decode(_ payload: UnsafeRawBufferPointer) -> Result<ForeignPosition, PositionRejection> {
        ForeignFields.object(payload).flatMap { decode(object: $0) }
    }

    public static func decode(_ payload: [UInt8]) -> Result<ForeignPosition, PositionRejection> {
        payload.withUnsafeBytes { decode($0) }
    }

    static func decode(object: JSONObject) -> Result<ForeignPosition, PositionRejection> {
        do throws(PositionRejection) {
            let device = try member(object, "device")
            let id = try ForeignFields.deviceID(device["uniqueId"], field: "device.uniqueId")
            let position = try member(object, "position")
            switch position["valid"] {
            case nil, .null?, .bool(true)?: break
            case .bool(false)?: throw .ignored(reason: "Traccar position of \(id) is not valid (no fix)")
            case let other?: throw .wrongType(field: "position.valid", expected: "a boolean", got: other.kindName)
            }
            let lat = try ForeignFields.coordinate(position["latitude"], field: "position.latitude", limit: 90)
            let lon = try ForeignFields.coordinate(position["longitude"], field: "position.longitude", limit: 180)
            let ts = try ForeignFields.epochOrISOTime(position["fixTime"], field: "position.fixTime")
            let acc = try ForeignFields.accuracy(position["accuracy"], field: "position.accuracy", zeroIsUnknown: true)
            let speed = try ForeignFields.speed(position["speed"], field: "position.speed", factor: SpeedUnit.knots.factor)
            let course = try ForeignFields.optionalNumber(position["course"], field: "position.course")
            return .success(ForeignPosition(
                device: id,
                position: DecodedPosition(lat: lat, lon: lon, timestamp: ts, accuracy: acc, speed: speed, heading: course)))
        } catch {
            return .failure(error)
        }
    }

    private static func member(_ object: JSONObject, _ key: String) throws(PositionRejection) -> JSONObject {
        switch object[key] {
        case nil, .null?: throw .missingField(key)
        case let .object(inner)?: return inner
        case let other?: throw .wrongType(field: key, expected: "an object", got: other.kindName)
        }
    }
}

extension TraccarPositionDecoder {
    /// The payload's device id when it is a usable one: where a rejection of its position is answered.
    public static func deviceID(in payload: UnsafeRawBufferPointer) -> String? {
        guard case let .success(object) = ForeignFields.object(payload), case let .object(device)? = object["device"],
            case let .string(id)? = device["uniqueId"], DeviceIDRules.problem(id) == nil
        else { return nil }
        return id
    }
}
