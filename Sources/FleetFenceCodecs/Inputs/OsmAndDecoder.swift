/// The OsmAnd protocol as the Traccar Client app speaks it (docs/trackers.md "Connecting trackers"): query or
/// form parameters, or the JSON body of its newer versions. Both name their device.
public enum OsmAndDecoder {
    /// Parameters read; others (`altitude`, `batt`, `hdop`...) are ignored, as Traccar does.
    static let known: Set<String> = ["id", "deviceid", "lat", "lon", "timestamp", "speed", "bearing", "heading", "accuracy"]
    /// Measurements a client may send empty when it has none (URL templates such as GPSLogger's
    /// fill a placeholder with nothing): read as unknown, never a reason to refuse the position.
    static let blankMeansUnknown: Set<String> = ["speed", "bearing", "heading", "accuracy"]

    /// `id` (or `deviceid`), `lat`, `lon`, `timestamp` (epoch seconds or ISO 8601), `speed` (knots),
    /// `bearing`, `accuracy` (metres); the last three may be empty.
    public static func decode(parameters: [(name: String, value: String)]) -> Result<ForeignPosition, PositionRejection> {
        do throws(PositionRejection) {
            var values: [String: String] = [:]
            for (name, value) in parameters where known.contains(name) {
                if value.isEmpty, blankMeansUnknown.contains(name) { continue }
                guard values[name] == nil else { throw .repeatedField(name) }
                values[name] = value
            }
            if values["id"] != nil, values["deviceid"] != nil { throw .repeatedField("id") }
            // Neither given: the error names `id`, the parameter the Traccar Client app sends.
            let idField = values["deviceid"] != nil ? "deviceid" : "id"
            let id = try ForeignFields.deviceID(values[idField].map(JSONValue.string), field: idField)
            func value(_ name: String) -> JSONValue? { values[name].map(JSONValue.string) }
            let lat = try ForeignFields.coordinate(value("lat"), field: "lat", limit: 90, numericStrings: true)
            let lon = try ForeignFields.coordinate(value("lon"), field: "lon", limit: 180, numericStrings: true)
            let ts = try ForeignFields.epochOrISOTime(value("timestamp"), field: "timestamp")
            let speed = try ForeignFields.speed(value("speed"), field: "speed", factor: SpeedUnit.knots.factor, numericStrings: true)
            let bearing = try ForeignFields.optionalNumber(value("bearing") ?? value("heading"), field: "bearing", numericStrings: true)
            let acc = try ForeignFields.accuracy(value("accuracy"), field: "accuracy", numericStrings: true)
            return .success(ForeignPosition(
                device: id, position: DecodedPosition(lat: lat, lon: lon, timestamp: ts, accuracy: acc, speed: speed, heading: bearing)))
        } catch {
            return .failure(error)
        }
    }

    /// `{"location": {"timestamp", "coords": {"latitude", "longitude", "accuracy", "speed" (m/s),
    /// "heading"}}, "device_id"}`.
    public static func decode(json body: [UInt8]) -> Result<ForeignPosition, PositionRejection> {
        body.withUnsafeBytes { ForeignFields.object($0) }.flatMap { object in
            do throws(PositionRejection) {
                let id = try ForeignFields.deviceID(object["device_id"], field: "device_id")
                let location = try member(object["location"], field: "location")
                let coords = try member(location["coords"], field: "location.coords")
                let lat = try ForeignFields.coordinate(coords["latitude"], field: "location.coords.latitude", limit: 90)
                let lon = try ForeignFields.coordinate(coords["longitude"], field: "location.coords.longitude", limit: 180)
                let ts = try ForeignFields.epochOrISOTime(location["timestamp"], field: "location.timestamp")
                let acc = try ForeignFields.accuracy(coords["accuracy"], field: "location.coords.accuracy")
                let speed = try ForeignFields.speed(coords["speed"], field: "location.coords.speed", factor: 1)
                let heading = try ForeignFields.optionalNumber(coords["heading"], field: "location.coords.heading")
                return .success(ForeignPosition(
                    device: id,
                    position: DecodedPosition(lat: lat, lon: lon, timestamp: ts, accuracy: acc, speed: speed, heading: heading)))
            } catch {
                return .failure(error)
            }
        }
    }

    private static func member(_ value: JSONValue?, field: String) throws(PositionRejection) -> JSONObject {
        switch value {
        case nil, .null?: throw .missingField(field)
        case let .object(inner)?: return inner
        case let other?: throw .wrongType(field: field, expected: "an object", got: other.kindName)
        }
    }
}
