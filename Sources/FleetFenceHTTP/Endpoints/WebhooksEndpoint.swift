import FleetFenceCodecs
import FleetFenceService
import Hummingbird

/// `/api/webhooks` (docs/webhooks.md "Webhooks"): each webhook's queue, its dead letters a page at a time,
/// and their redelivery. Answered on a thread pool: the journal's SQLite blocks.
struct WebhooksEndpoint: Sendable {
    let api: any FleetFenceAPI
    private static let unreadable = "the webhooks' journal cannot be read"

    func list() async throws(HTTPProblem) -> Response {
        let api = api
        let webhooks = try await offloaded(Self.unreadable) { try api.webhookStatus() }
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("webhooks")
        json.beginArray()
        for webhook in webhooks {
            json.beginObject()
            json.key("name")
            json.string(webhook.name)
            json.key("url")
            json.string(webhook.url)
            for (key, count) in [
                ("queued", webhook.queued), ("delivered", webhook.delivered), ("retrying", webhook.retrying),
                ("dead", webhook.dead),
            ] {
                json.key(key)
                json.integer(Int64(count))
            }
            json.key("last_error")
            if let error = webhook.lastError { json.string(error) } else { json.null() }
            json.key("last_delivered_at")
            Self.time(webhook.lastDeliveredAt, &json)
            json.key("next_attempt_at")
            Self.time(webhook.nextAttemptAt, &json)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return .json(json.bytes)
    }

    /// The dead letters' query parameters (the route declares them).
    static let deadParameters: Set<String> = ["limit", "after"]

    func dead(_ name: String, _ target: RequestTarget) async throws(HTTPProblem) -> Response {
        // Paged as /api/events, as the contract says: the same default and largest page.
        let limit = try target.limit(default: 1_000, maximum: 10_000)
        let after = try Self.cursor(target)
        let api = api
        guard let page = try await offloaded(Self.unreadable, { try api.webhookDeadLetters(name, after: after, limit: limit) }) else {
            throw .notFound("no webhook named \(name)")
        }
        // The payloads are spliced in as they were published; the writer holds no raw values.
        var bytes = Array(#"{"dead":["#.utf8)
        for (index, letter) in page.dead.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            var fields = JSONWriter(capacity: 256)
            fields.beginObject()
            fields.key("delivery")
            fields.string("\(letter.device)/\(letter.seq)")
            fields.key("device")
            fields.string(letter.device)
            fields.key("seq")
            fields.integer(letter.seq)
            fields.key("event_name")
            fields.string(letter.event)
            fields.key("error")
            fields.string(letter.error)
            fields.key("attempts")
            fields.integer(Int64(letter.attempts))
            fields.key("first_attempt_at")
            Self.time(letter.firstAttemptAt, &fields)
            fields.key("last_attempt_at")
            Self.time(letter.lastAttemptAt, &fields)
            fields.endObject()
            // `{…}` with `"event":<payload>` added before the closing brace.
            bytes += fields.bytes.dropLast()
            bytes += Array(#","event":"#.utf8)
            bytes += letter.payload
            bytes.append(UInt8(ascii: "}"))
        }
        bytes += Array(#"],"next":"#.utf8)
        if let next = page.next {
            var cursor = JSONWriter(capacity: 32)
            cursor.string(String(next))
            bytes += cursor.bytes
        } else {
            bytes += Array("null".utf8)
        }
        bytes.append(UInt8(ascii: "}"))
        return .json(bytes)
    }

    func redeliver(_ name: String) async throws(HTTPProblem) -> Response {
        let api = api
        guard let count = try await offloaded(Self.unreadable, { try api.redeliverWebhook(name) }) else {
            throw .notFound("no webhook named \(name)")
        }
        var json = JSONWriter(capacity: 32)
        json.beginObject()
        json.key("requeued")
        json.integer(Int64(count))
        json.endObject()
        return .json(json.bytes, status: .accepted)
    }

    /// `after`: the `next` of a previous page, a row number.
    private static func cursor(_ target: RequestTarget) throws(HTTPProblem) -> Int64? {
        guard let text = try target.single("after") else { return nil }
        guard let row = Int64(text), row >= 0 else { throw .badRequest("after must be the next of a previous page, got \(text)") }
        return row
    }

    private static func time(_ seconds: Double?, _ json: inout JSONWriter) {
        if let seconds { json.time(seconds) } else { json.null() }
    }
}
