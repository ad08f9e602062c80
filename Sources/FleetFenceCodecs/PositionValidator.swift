/// The meaning of a position payload, written once for both parsers so that they can only differ in parsing.
/// Fields are checked in a fixed order, so a payload with several faults gets the same reason from both.
enum PositionValidator {
    /// Native and Home Assistant spellings. A native key wins over its Home Assistant spelling when both are present.
    @inline(__always)
    static func native<T>(_ f: PositionFields<T>, deviceID: String) -> Result<DecodedPosition, PositionRejection> {
        do throws(PositionRejection) {
            try checkID(f.id, deviceID: deviceID)
            let (latKey, latValue) = f.lat.map { (PositionKey.lat, $0) } ?? (.latitude, f.latitude)
            let (lonKey, lonValue) = f.lon.map { (PositionKey.lon, $0) } ?? (.longitude, f.longitude)
            let lat = try coordinate(latValue, key: latKey, reportedAs: .lat, limit: 90)
            let lon = try coordinate(lonValue, key: lonKey, reportedAs: .lon, limit: 180)
            let ts = try time(f.ts, key: .ts)
            let (accKey, accValue) = f.acc.map { (PositionKey.acc, $0) } ?? (.gpsAccuracy, f.gpsAccuracy)
            let acc = try accuracy(accValue, key: accKey)
            let spd = try optionalNumber(f.spd, key: .spd)
            let hdg = try optionalNumber(f.hdg, key: .hdg)
            return .success(DecodedPosition(
                lat: lat, lon: lon, timestamp: ts, accuracy: acc, speed: spd, heading: hdg
            ))
        } catch {
            return .failure(error)
        }
    }

    /// An `id` field, if present, must equal the topic's device id.
    @inline(__always)
    private static func checkID<T>(_ value: RawValue<T>?, deviceID: String) throws(PositionRejection) {
        switch value {
        case nil, .null?: return
        case let .string(text)?:
            guard text.equals(deviceID) else { throw .idMismatch(expected: deviceID, got: text.string) }
        case let other?: throw .wrongType(field: "id", expected: "a string", got: other.kindName)
        }
    }

    /// OwnTracks: `_type` must be `location`; `lat`, `lon`, `tst`, `acc`, `vel` (km/h: a fence's
    /// speed limit needs it) and `cog`, read as `spd` and `hdg` are; an `id` must name the topic's
    /// device (`<user>-<device>`).
    @inline(__always)
    static func ownTracks<T>(_ f: PositionFields<T>, deviceID: String) -> Result<DecodedPosition, PositionRejection> {
        do throws(PositionRejection) {
            switch f.type {
            case nil: throw .missingField("_type")
            case let .string(text)?:
                guard text.equals("location") else {
                    throw .ignored(reason: "OwnTracks _type \"\(text.string)\" is not a location")
                }
            case let other?: throw .wrongType(field: "_type", expected: "a string", got: other.kindName)
            }
            // After the type: other _types are ignored whatever they carry.
            try checkID(f.id, deviceID: deviceID)
            let lat = try coordinate(f.lat, key: .lat, reportedAs: .lat, limit: 90)
            let lon = try coordinate(f.lon, key: .lon, reportedAs: .lon, limit: 180)
            let ts = try time(f.tst, key: .tst)
            let acc = try accuracy(f.acc, key: .acc)
            // Apps' extras, never a reason to lose the position: anything but a number is unknown.
            return .success(DecodedPosition(
                lat: lat, lon: lon, timestamp: ts, accuracy: acc, speed: finite(f.vel).map { $0 / 3.6 }, heading: finite(f.cog)))
        } catch {
            return .failure(error)
        }
    }

    /// A required coordinate: a finite number within [-limit, limit].
    @inline(__always)
    private static func coordinate<T>(
        _ value: RawValue<T>?, key: PositionKey, reportedAs missing: PositionKey, limit: Double
    ) throws(PositionRejection) -> Double {
        guard let value else { throw .missingField(missing.name) }
        guard case let .number(x) = value else {
            throw .wrongType(field: key.name, expected: "a number", got: value.kindName)
        }
        guard x.isFinite else { throw .notFinite(field: key.name) }
        guard x >= -limit, x <= limit else { throw .outOfRange(field: key.name, value: x) }
        return x
    }

    /// An optional event time: seconds since the epoch, or an RFC 3339 string; positive and printable as RFC 3339.
    @inline(__always)
    private static func time<T>(_ value: RawValue<T>?, key: PositionKey) throws(PositionRejection) -> Double? {
        let seconds: Double
        switch value {
        case nil, .null?: return nil
        case let .number(x)?:
            guard x.isFinite else { throw .notFinite(field: key.name) }
            seconds = x
        case let .string(text)?:
            guard let parsed = text.withUTF8Bytes({ RFC3339.parse($0) }) else {
                throw .badTimestamp(field: key.name, text: text.string)
            }
            seconds = parsed
        case let other?:
            throw .wrongType(field: key.name, expected: "a number or an RFC 3339 string", got: other.kindName)
        }
        guard seconds > 0, seconds <= RFC3339.maxSeconds else { throw .outOfRange(field: key.name, value: seconds) }
        return seconds
    }

    @inline(__always)
    private static func accuracy<T>(_ value: RawValue<T>?, key: PositionKey) throws(PositionRejection) -> Double? {
        guard let acc = try optionalNumber(value, key: key) else { return nil }
        guard acc >= 0 else { throw .outOfRange(field: key.name, value: acc) }
        return acc
    }

    /// A finite number, or `nil` for anything else.
    @inline(__always)
    private static func finite<T>(_ value: RawValue<T>?) -> Double? {
        guard case let .number(x)? = value, x.isFinite else { return nil }
        return x
    }

    /// Absent or null is `nil`; any other non-number is a type error.
    @inline(__always)
    private static func optionalNumber<T>(_ value: RawValue<T>?, key: PositionKey) throws(PositionRejection) -> Double? {
        switch value {
        case nil, .null?: return nil
        case let .number(x)?:
            guard x.isFinite else { throw .notFinite(field: key.name) }
            return x
        case let other?: throw .wrongType(field: key.name, expected: "a number", got: other.kindName)
        }
    }
}
