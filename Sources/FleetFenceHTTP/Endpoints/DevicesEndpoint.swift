import FleetFenceCodecs
import FleetFenceService
import Hummingbird

/// `/api/devices` and `/api/devices/{id}`: each device's state as on `<prefix>/state/<device>`,
/// with `last_seen` (the latest accepted sample's time) and its latest position.
struct DevicesEndpoint: Sendable {
    let api: any FleetFenceAPI

    static let defaultLimit = 1_000
    static let maxLimit = 10_000

    /// Its query parameters (the route declares them).
    static let parameters: Set<String> = ["limit", "after"]

    func list(_ target: RequestTarget) throws(HTTPProblem) -> Response {
        let limit = try target.limit(default: Self.defaultLimit, maximum: Self.maxLimit)
        let after = try target.single("after")
        // One more than asked: whether a next page exists.
        let page = api.readModel.devices(after: after, limit: limit + 1)
        let shown = page.prefix(limit)
        var json = JSONWriter(capacity: 200 * shown.count + 64)
        json.beginObject()
        json.key("devices")
        json.beginArray()
        for view in shown { Self.write(view, into: &json) }
        json.endArray()
        json.key("next")
        if page.count > limit, let last = shown.last { json.string(last.device) } else { json.null() }
        json.endObject()
        return .json(json.bytes)
    }

    func get(_ id: String) throws(HTTPProblem) -> Response {
        guard let view = api.readModel.device(id) else { throw .notFound("no device \(id)") }
        var json = JSONWriter(capacity: 256)
        Self.write(view, into: &json)
        return .json(json.bytes)
    }

    static func write(_ view: DeviceView, into json: inout JSONWriter) {
        json.beginObject()
        json.key("device")
        json.string(view.device)
        json.key("inside")
        json.beginArray()
        for fence in view.inside { json.string(fence) }
        json.endArray()
        optionalTime("at", view.at ?? view.lastSeen, into: &json)
        optionalNumber("lat", view.lat ?? view.lastLat, into: &json)
        optionalNumber("lon", view.lon ?? view.lastLon, into: &json)
        optionalTime("last_seen", view.lastSeen, into: &json)
        optionalNumber("last_lat", view.lastLat, into: &json)
        optionalNumber("last_lon", view.lastLon, into: &json)
        json.endObject()
    }

    private static func optionalTime(_ key: String, _ value: Double?, into json: inout JSONWriter) {
        json.key(key)
        if let value { json.time(value) } else { json.null() }
    }

    private static func optionalNumber(_ key: String, _ value: Double?, into json: inout JSONWriter) {
        json.key(key)
        if let value { json.number(value) } else { json.null() }
    }
}
