/// Home Assistant's MQTT discovery for a FleetFence device (docs/integrations.md "Home Assistant"): a
/// `device_tracker` whose state is the fence the device is in and whose attributes carry its
/// position. Keys as Home Assistant's MQTT device tracker documents them.
public enum HomeAssistantPayload {
    /// The discovery object id: the device id when it is made of what Home Assistant allows in a
    /// discovery topic (`[a-zA-Z0-9_-]`), otherwise those characters kept, the rest as `_`, and
    /// eight hex digits of the id's FNV-1a hash, so that two ids never share one.
    public static func objectID(device: String) -> String {
        let allowed = device.utf8.allSatisfy(isAllowed)
        if allowed { return "fleetfence_\(device)" }
        let kept = String(decoding: device.utf8.map { isAllowed($0) ? $0 : UInt8(ascii: "_") }, as: UTF8.self)
        let hash = String(fnv1a32(device.utf8), radix: 16)
        return "fleetfence_\(kept)_\(String(repeating: "0", count: 8 - hash.count))\(hash)"
    }

    /// The retained discovery config.
    public static func discovery(
        device: String, objectID: String, stateTopic: String, attributesTopic: String, availabilityTopic: String
    ) -> [UInt8] {
        var json = JSONWriter(capacity: 512)
        json.beginObject()
        json.key("name")
        json.null()  // the entity takes the device's name
        json.key("unique_id")
        json.string(objectID)
        json.key("object_id")
        json.string(objectID)
        json.key("state_topic")
        json.string(stateTopic)
        json.key("json_attributes_topic")
        json.string(attributesTopic)
        json.key("availability_topic")
        json.string(availabilityTopic)
        json.key("payload_available")
        json.string("online")
        json.key("payload_not_available")
        json.string("offline")
        json.key("payload_not_home")
        json.string("not_home")
        json.key("source_type")
        json.string("gps")
        json.key("qos")
        json.integer(UInt64(1))
        json.key("device")
        json.beginObject()
        json.key("identifiers")
        json.beginArray()
        json.string(objectID)
        json.endArray()
        json.key("name")
        json.string(device)
        json.key("manufacturer")
        json.string("FleetFence")
        json.key("model")
        json.string("FleetFence geofence tracker")
        json.endObject()
        json.endObject()
        return json.bytes
    }

    /// The state: the name of a fence the device is in (the first by id; its id when it has no
    /// name), or `not_home`.
    public static func state(fenceName: String?) -> [UInt8] {
        Array((fenceName ?? "not_home").utf8)
    }

    /// The attributes: where the device is and every fence it is in.
    public static func attributes(lat: Double, lon: Double, accuracy: Double?, inside: [String]) -> [UInt8] {
        var json = JSONWriter(capacity: 128 + 16 * inside.count)
        json.beginObject()
        json.key("latitude")
        json.number(lat)
        json.key("longitude")
        json.number(lon)
        json.key("gps_accuracy")
        json.number(accuracy ?? 0)
        json.key("inside")
        json.beginArray()
        for fence in inside { json.string(fence) }
        json.endArray()
        json.endObject()
        return json.bytes
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }
}

/// FNV-1a, 32 bits: small, fixed across platforms and versions, so identifiers derived from it
/// stay the same.
public func fnv1a32(_ bytes: some Sequence<UInt8>) -> UInt32 {
    var hash: UInt32 = 0x811C_9DC5
    for byte in bytes {
        hash ^= UInt32(byte)
        hash &*= 0x0100_0193
    }
    return hash
}
