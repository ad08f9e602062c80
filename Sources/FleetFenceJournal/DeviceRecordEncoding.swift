import FleetFenceCodecs
import GeofenceEngine

/// A device's record as the journal stores it: the JSON of `DeviceRecord`'s `Codable`
/// conformance (absent optionals left out, numbers exact), written and read directly. The
/// service journals the record of every device that moved, where Foundation's `JSONEncoder`
/// spent a tenth of its CPU; and `JSONDecoder` took over 10 s to restore a million devices.
public enum DeviceRecordEncoding {
    public static func encode(_ record: DeviceRecord) -> [UInt8] {
        var json = JSONWriter(capacity: 160 + 160 * record.regions.count)
        json.beginObject()
        json.key("device")
        json.string(record.device)
        optional("lastTimestamp", record.lastTimestamp, &json)
        optional("anchorTime", record.anchorTime, &json)
        optional("anchorLat", record.anchorLat, &json)
        optional("anchorLon", record.anchorLon, &json)
        json.key("seq")
        json.integer(record.seq)
        json.key("knownGeneration")
        json.integer(UInt64(record.knownGeneration))
        optional("lastArrival", record.lastArrival, &json)
        json.key("regions")
        json.beginArray()
        for region in record.regions {
            json.beginObject()
            json.key("fence")
            json.string(region.fence)
            json.key("state")
            json.string(region.state.rawValue)
            json.key("enteredAt")
            json.number(region.enteredAt)
            json.key("dwellReported")
            json.bool(region.dwellReported)
            if let pending = region.pending {
                json.key("pending")
                json.beginObject()
                json.key("crossedAt")
                json.number(pending.crossedAt)
                optional("evidenceSince", pending.evidenceSince, &json)
                json.key("lat")
                json.number(pending.lat)
                json.key("lon")
                json.number(pending.lon)
                json.endObject()
            }
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    private static func optional(_ key: String, _ value: Double?, _ json: inout JSONWriter) {
        guard let value else { return }
        json.key(key)
        json.number(value)
    }

    /// Reads what `encode` (or `JSONEncoder`) wrote. Keys it does not know are ignored.
    public static func decode(_ bytes: [UInt8]) throws(UnreadableRecord) -> DeviceRecord {
        let object: JSONObject
        switch JSONParser.parse(bytes) {
        case let .success(.object(parsed)): object = parsed
        case .success: throw UnreadableRecord(description: "not a JSON object")
        case let .failure(error): throw UnreadableRecord(description: "not JSON: \(error)")
        }
        var regions: [DeviceRecord.Region] = []
        guard case let .array(items)? = object["regions"] else { throw UnreadableRecord(description: "no regions") }
        regions.reserveCapacity(items.count)
        for item in items {
            guard case let .object(region) = item else { throw UnreadableRecord(description: "a region is not an object") }
            guard let stateName = try string("state", region), let state = RegionState(rawValue: stateName) else {
                throw UnreadableRecord(description: "a region's state is missing or unknown")
            }
            var pending: PendingChange?
            switch region["pending"] {
            case nil, .null?: break
            case let .object(change)?:
                pending = PendingChange(
                    crossedAt: try required("crossedAt", change), evidenceSince: try number("evidenceSince", change),
                    lat: try required("lat", change), lon: try required("lon", change))
            default: throw UnreadableRecord(description: "a region's pending is not an object")
            }
            guard case let .bool(dwellReported)? = region["dwellReported"] else {
                throw UnreadableRecord(description: "a region's dwellReported is missing")
            }
            regions.append(DeviceRecord.Region(
                fence: try requiredString("fence", region), state: state, enteredAt: try required("enteredAt", region),
                dwellReported: dwellReported, pending: pending))
        }
        guard let seq = UInt64(exactly: try required("seq", object)),
            let knownGeneration = UInt32(exactly: try required("knownGeneration", object))
        else { throw UnreadableRecord(description: "seq or knownGeneration is not a whole number in range") }
        return DeviceRecord(
            device: try requiredString("device", object), lastTimestamp: try number("lastTimestamp", object),
            anchorTime: try number("anchorTime", object), anchorLat: try number("anchorLat", object),
            anchorLon: try number("anchorLon", object), seq: seq, knownGeneration: knownGeneration,
            lastArrival: try number("lastArrival", object), regions: regions)
    }

    private static func number(_ key: String, _ object: JSONObject) throws(UnreadableRecord) -> Double? {
        switch object[key] {
        case nil, .null?: return nil
        case let .number(value)?: return value
        default: throw UnreadableRecord(description: "\(key) is not a number")
        }
    }

    private static func required(_ key: String, _ object: JSONObject) throws(UnreadableRecord) -> Double {
        guard let value = try number(key, object) else { throw UnreadableRecord(description: "\(key) is missing") }
        return value
    }

    private static func string(_ key: String, _ object: JSONObject) throws(UnreadableRecord) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case let .string(value)?: return value
        default: throw UnreadableRecord(description: "\(key) is not a string")
        }
    }

    private static func requiredString(_ key: String, _ object: JSONObject) throws(UnreadableRecord) -> String {
        guard let value = try string(key, object) else { throw UnreadableRecord(description: "\(key) is missing") }
        return value
    }
}
