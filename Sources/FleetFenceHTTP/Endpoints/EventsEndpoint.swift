import FleetFenceCodecs
import FleetFenceJournal
import FleetFenceService
import HTTPTypes
import Hummingbird

/// `/api/events`: the journal's history, each alert exactly as it was published; filtered, paged
/// by cursor, as JSON or CSV. Answered from a reader connection of its own, on a thread pool:
/// SQLite blocks, and the event loops serve the map and the stream meanwhile.
struct EventsEndpoint: Sendable {
    let api: any FleetFenceAPI

    static let nextHeader = HTTPField.Name("FleetFence-Next")!

    /// Its query parameters (the route declares them).
    static let parameters: Set<String> = ["device", "fence", "event", "since", "until", "limit", "after", "format"]

    func list(_ target: RequestTarget) async throws(HTTPProblem) -> Response {
        let (query, csv) = try Self.query(target)
        let api = api
        let page = try await offloaded("the history cannot be read") { try api.events(query) }
        guard csv else { return .json(Self.json(page)) }
        var response = Response.bytes(EventsCSV.encode(page.events), contentType: "text/csv; charset=utf-8")
        // CSV has no room for the cursor: the next page's `after` comes as a header.
        if let next = page.next { response.headers[Self.nextHeader] = next.description }
        return response
    }

    /// The filters, limit, cursor and format of a request; each bad one named.
    static func query(_ target: RequestTarget) throws(HTTPProblem) -> (EventQuery, csv: Bool) {
        var query = EventQuery()
        query.devices = target.values("device")
        query.fences = target.values("fence")
        query.events = target.values("event")
        query.since = try time(target, "since")
        query.until = try time(target, "until")
        query.limit = try target.limit(default: 1_000, maximum: 10_000)
        if let after = try target.single("after") {
            guard let cursor = EventCursor(after) else {
                throw .badRequest("after must be the next of a previous page, got \(after)")
            }
            query.after = cursor
        }
        let format = try target.single("format") ?? "json"
        guard format == "json" || format == "csv" else { throw .badRequest("format must be json or csv, got \(format)") }
        return (query, format == "csv")
    }

    static func time(_ target: RequestTarget, _ name: String) throws(HTTPProblem) -> Double? {
        guard let text = try target.single(name) else { return nil }
        guard let seconds = EventQuery.time(text) else {
            throw .badRequest("\(name) must be an RFC 3339 time or epoch seconds, got \(text)")
        }
        return seconds
    }

    /// The stored payloads are spliced in as they are: what was published, byte for byte.
    static func json(_ page: EventPage) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(page.events.reduce(64) { $0 + $1.alertJSON.count + 1 })
        bytes += Array(#"{"events":["#.utf8)
        for (index, event) in page.events.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += event.alertJSON
        }
        bytes += Array(#"],"next":"#.utf8)
        if let next = page.next {
            var json = JSONWriter(capacity: 48)
            json.string(next.description)
            bytes += json.bytes
        } else {
            bytes += Array("null".utf8)
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
