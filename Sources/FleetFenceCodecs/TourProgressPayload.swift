import GeofenceEngine

/// The retained progress on `<prefix>/progress/<device>/<tour>` (docs/rules.md "Tours"):
/// `{"device", "tour", "round", "next_stop", "visited": [{"stop", "at"}], "skipped": [stop ids]}`;
/// `next_stop` is null when there is none to name.
public enum TourProgressPayload {
    public static func encode(_ report: TourProgressReport) -> [UInt8] {
        var json = JSONWriter(capacity: 128 + 64 * report.visited.count + 24 * report.skipped.count)
        json.beginObject()
        json.key("device")
        json.string(report.device)
        json.key("tour")
        json.string(report.tour)
        json.key("round")
        json.integer(Int64(report.round))
        json.key("next_stop")
        if let next = report.nextStop { json.string(next) } else { json.null() }
        json.key("visited")
        json.beginArray()
        for visit in report.visited {
            json.beginObject()
            json.key("stop")
            json.string(visit.stop)
            json.key("at")
            json.time(visit.at)
            json.endObject()
        }
        json.endArray()
        json.key("skipped")
        json.beginArray()
        for stop in report.skipped { json.string(stop) }
        json.endArray()
        json.endObject()
        return json.bytes
    }
}
