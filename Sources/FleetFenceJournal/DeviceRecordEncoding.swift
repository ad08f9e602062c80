import FleetFenceCodecs
import GeofenceEngine

/// A device's record as the journal stores it: the JSON of `DeviceRecord`'s `Codable`
/// conformance (absent optionals left out, numbers exact), written and read directly. The
/// service journals the record of every device that moved, where Foundation's `JSONEncoder`
/// spent a tenth of its CPU; and `JSONDecoder` took over 10 s to restore a million devices.
public enum DeviceRecordEncoding {
    public static func encode(_ record: DeviceRecord) -> [UInt8] {
        var json = JSONWriter(capacity: 160 + 160 * record.regions.count + 128 * record.tours.count)
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
            if let speeding = region.speeding {
                json.key("speeding")
                json.beginObject()
                json.key("since")
                json.number(speeding.since)
                json.key("maxSpeed")
                json.number(speeding.maxSpeed)
                json.key("alerted")
                json.bool(speeding.alerted)
                optional("calmSince", speeding.calmSince, &json)
                json.endObject()
            }
            json.endObject()
        }
        json.endArray()
        // Absent when empty, as the synthesized Codable conformance of old records had it.
        if !record.tours.isEmpty {
            json.key("tours")
            json.beginArray()
            for progress in record.tours { write(progress, &json) }
            json.endArray()
        }
        optional("lastHeard", record.lastHeard, &json)
        json.endObject()
        return json.bytes
    }

    private static func write(_ progress: TourProgress, _ json: inout JSONWriter) {
        json.beginObject()
        json.key("tour")
        json.string(progress.tour)
        json.key("round")
        json.integer(Int64(progress.round))
        json.key("visited")
        json.beginArray()
        for visit in progress.visited {
            json.beginObject()
            json.key("stop")
            json.string(visit.stop)
            json.key("at")
            json.number(visit.at)
            json.endObject()
        }
        json.endArray()
        json.key("skipped")
        json.beginArray()
        for stop in progress.skipped { json.string(stop) }
        json.endArray()
        json.key("completed")
        json.bool(progress.completed)
        json.endObject()
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
            var speeding: SpeedingEpisode?
            switch region["speeding"] {
            case nil, .null?: break
            case let .object(episode)?:
                guard case let .bool(alerted)? = episode["alerted"] else {
                    throw UnreadableRecord(description: "a speeding episode's alerted is missing")
                }
                speeding = SpeedingEpisode(
                    since: try required("since", episode), maxSpeed: try required("maxSpeed", episode), alerted: alerted,
                    calmSince: try number("calmSince", episode))
            default: throw UnreadableRecord(description: "a region's speeding is not an object")
            }
            regions.append(DeviceRecord.Region(
                fence: try requiredString("fence", region), state: state, enteredAt: try required("enteredAt", region),
                dwellReported: dwellReported, pending: pending, speeding: speeding))
        }
        var tours: [TourProgress] = []
        switch object["tours"] {
        case nil, .null?: break
        case let .array(items)?:
            for item in items { tours.append(try progress(item)) }
        default: throw UnreadableRecord(description: "tours is not an array")
        }
        guard let seq = UInt64(exactly: try required("seq", object)),
            let knownGeneration = UInt32(exactly: try required("knownGeneration", object))
        else { throw UnreadableRecord(description: "seq or knownGeneration is not a whole number in range") }
        return DeviceRecord(
            device: try requiredString("device", object), lastTimestamp: try number("lastTimestamp", object),
            anchorTime: try number("anchorTime", object), anchorLat: try number("anchorLat", object),
            anchorLon: try number("anchorLon", object), seq: seq, knownGeneration: knownGeneration,
            lastArrival: try number("lastArrival", object), regions: regions, tours: tours,
            lastHeard: try number("lastHeard", object))
    }

    private static func progress(_ value: JSONValue) throws(UnreadableRecord) -> TourProgress {
        guard case let .object(object) = value else { throw UnreadableRecord(description: "a tour's progress is not an object") }
        guard let round = Int(exactly: try required("round", object)) else {
            throw UnreadableRecord(description: "a tour's round is not a whole number")
        }
        guard case let .array(visitItems)? = object["visited"], case let .array(skippedItems)? = object["skipped"],
            case let .bool(completed)? = object["completed"]
        else { throw UnreadableRecord(description: "a tour's visited, skipped or completed is missing") }
        var visited: [TourProgress.Visit] = []
        for item in visitItems {
            guard case let .object(visit) = item else { throw UnreadableRecord(description: "a visit is not an object") }
            visited.append(TourProgress.Visit(stop: try requiredString("stop", visit), at: try required("at", visit)))
        }
        var skipped: [String] = []
        for item in skippedItems {
            guard case let .string(stop) = item else { throw UnreadableRecord(description: "a skipped stop is not a string") }
            skipped.append(stop)
        }
        return TourProgress(
            tour: try requiredString("tour", object), round: round, visited: visited, skipped: skipped, completed: completed)
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
