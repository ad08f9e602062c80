import FleetFenceCodecs
import FleetFenceJournal
import FleetFenceService
import Hummingbird
import NIOPosix

/// `/api/events`: the journal's history, each alert exactly as it was published; filtered, paged
/// by cursor, as JSON or CSV. Answered from a reader connection of its own, on a thread pool:
/// SQLite blocks, and the event loops serve the map and the stream meanwhile.
struct EventsEndpoint: Sendable {
    let service: GeofenceService

    static let parameters: Set<String> = ["device", "fence", "event", "since", "until", "limit", "after", "format"]

    func list(_ target: RequestTarget) async throws(HTTPProblem) -> Response {
        try target.checkQuery(allowed: Self.parameters)
        let (query, csv) = try Self.query(target)
        let service = service
        let page: EventPage
        do {
            page = try await NIOThreadPool.singleton.runIfActive { try service.events(query) }
        } catch {
            throw HTTPProblem(status: .serviceUnavailable, reason: "the history cannot be read: \(error)")
        }
        return csv ? .bytes(EventsCSV.encode(page.events), contentType: "text/csv; charset=utf-8") : .json(Self.json(page))
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

    /// RFC 3339 or seconds since the epoch.
    static func time(_ target: RequestTarget, _ name: String) throws(HTTPProblem) -> Double? {
        guard let text = try target.single(name) else { return nil }
        if let seconds = Double(text), seconds.isFinite { return seconds }
        if let seconds = RFC3339.parse(text) { return seconds }
        throw .badRequest("\(name) must be an RFC 3339 time or epoch seconds, got \(text)")
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

/// The history as CSV (RFC 4180), one alert a row, with a header row; times in RFC 3339.
enum EventsCSV {
    static let header = ["event", "device", "fence", "name", "at", "confirmed_at", "lat", "lon", "seq", "dwell_s", "duration_s", "reason"]

    static func encode(_ events: [JournalTransition]) -> [UInt8] {
        var out = Array((header.joined(separator: ",") + "\r\n").utf8)
        out.reserveCapacity(events.count * 140 + out.count)
        for event in events {
            let fields: [String] = [
                event.event, event.device, event.fence, event.name ?? "", RFC3339.format(event.at),
                RFC3339.format(event.confirmedAt), number(event.lat), number(event.lon), String(event.seq),
                event.dwellSeconds.map(number) ?? "", event.durationSeconds.map(number) ?? "", event.reason ?? "",
            ]
            out += Array((fields.map(quoted).joined(separator: ",") + "\r\n").utf8)
        }
        return out
    }

    private static func number(_ value: Double) -> String {
        var bytes: [UInt8] = []
        JSONWriter.appendNumber(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Quoted when it holds a comma, a quote or a line break; quotes doubled.
    private static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
