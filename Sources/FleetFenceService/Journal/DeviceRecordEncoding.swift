import FleetFenceCodecs
import GeofenceEngine

/// A device's record as the journal stores it: the JSON that `DeviceRecord`'s `Codable`
/// conformance reads back (absent optionals left out, numbers exact), written directly. Every
/// second the service journals the record of every device that moved, and Foundation's
/// `JSONEncoder` spent a tenth of the service's CPU on it.
enum DeviceRecordEncoding {
    static func encode(_ record: DeviceRecord) -> [UInt8] {
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
}
