/// The retained device state on `<prefix>/state/<device>`: `{"device", "inside", "at", "lat", "lon"}`.
public enum StatePayload {
    /// `inside` is written sorted, so that the same state always gives the same bytes (it is retained and
    /// published on change only). `at` is the event time of the position that produced this state.
    public static func encode(device: String, inside: [String], at: Double, lat: Double, lon: Double) -> [UInt8] {
        var json = JSONWriter(capacity: 128 + 16 * inside.count)
        json.beginObject()
        json.key("device")
        json.string(device)
        json.key("inside")
        json.beginArray()
        for fence in inside.sorted() { json.string(fence) }
        json.endArray()
        json.key("at")
        json.time(at)
        json.key("lat")
        json.number(lat)
        json.key("lon")
        json.number(lon)
        json.endObject()
        return json.bytes
    }
}
