import FleetFenceCodecs
import FleetFenceService
import HTTPTypes
import Hummingbird

/// Positions over HTTP (docs/trackers.md "Connecting trackers"): the native format in batches, the OsmAnd
/// protocol of Traccar Client, and OwnTracks' HTTP mode. Writes, guarded as the others are (their
/// routes carry the ``WriteGuard``); each decoded here and fed through the same core step as an
/// MQTT position.
struct PositionsEndpoint: Sendable {
    let api: any FleetFenceAPI

    /// `POST /api/positions`: `{"accepted": n, "late": n, "stale": n, "too_late": n, "rejected":
    /// [{"index", "error"}]}`; a bad element is rejected alone. `accepted` counts the late ones too
    /// (each is merged); the others are the outcomes of `fleetfence_positions_total`.
    func positions(_ request: Request) async throws(HTTPProblem) -> Response {
        let source = "POST /api/positions"
        let body = try await body(of: request, source: source)
        guard !body.isEmpty else {
            try await refuse(.missingField("body"), source: source, saying: "the body is empty: a position or an array of positions is expected")
        }
        let items: [Result<ForeignPosition, PositionRejection>]
        switch PositionBatchDecoder.decode(body) {
        case let .success(decoded): items = decoded
        case let .failure(rejection): try await refuse(rejection, source: source)
        }
        let outcomes = try await ingest(items, source: source)
        var json = JSONWriter(capacity: 64)
        json.beginObject()
        let late = outcomes.count { $0 == .late }
        json.key("accepted")
        json.integer(Int64(outcomes.count { $0 == .accepted } + late))
        json.key("late")
        json.integer(Int64(late))
        json.key("stale")
        json.integer(Int64(outcomes.count { $0 == .stale }))
        json.key("too_late")
        json.integer(Int64(outcomes.count { $0 == .tooLate }))
        json.key("rejected")
        json.beginArray()
        for (index, outcome) in outcomes.enumerated() {
            guard case let .rejected(reason) = outcome else { continue }
            json.beginObject()
            json.key("index")
            json.integer(Int64(index))
            json.key("error")
            json.string(reason)
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return .json(json.bytes)
    }

    /// `GET` or `POST /api/osmand`: query or form parameters, or the JSON body of newer Traccar
    /// Client versions. 200 with an empty body when taken (also when stale: a retry would not be
    /// newer), 400 with the reason when not.
    func osmAnd(_ request: Request, _ target: RequestTarget) async throws(HTTPProblem) -> Response {
        let source = "\(request.method.rawValue) /api/osmand"
        if let problem = target.queryProblem { try await refuse(.undecodable(problem.reason), source: source) }
        let decoded: Result<ForeignPosition, PositionRejection>
        if request.method == .post {
            let body = try await body(of: request, source: source)
            // JSON when it says so or looks so: a broken JSON body is answered as broken JSON, not
            // as a form missing its fields.
            let first = body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) })
            let saysJSON = request.headers[.contentType]?.lowercased().contains("json") ?? false
            // An empty body is none, whatever its type: the parameters are in the query.
            if first != nil, saysJSON || first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
                decoded = OsmAndDecoder.decode(json: body)
            } else {
                // A form body, or none (the app's older versions put everything in the query).
                do {
                    let form = try RequestTarget.pairs(String(decoding: body, as: UTF8.self), in: "the form body")
                    decoded = OsmAndDecoder.decode(parameters: target.query + form)
                } catch {
                    try await refuse(.undecodable(error.reason), source: source)
                }
            }
        } else {
            decoded = OsmAndDecoder.decode(parameters: target.query)
        }
        let outcome = try await ingest([decoded], source: source).first
        if case let .rejected(reason)? = outcome { throw .badRequest(reason) }
        return Response(status: .ok)
    }

    /// `POST /api/owntracks`: OwnTracks' HTTP mode, the device `<user>-<device>` from `X-Limit-U`
    /// and `X-Limit-D` (or `u` and `d`); answered `[]` (no friends' locations to hand back).
    /// Its query parameters (the route declares them).
    static let ownTracksParameters: Set<String> = ["u", "d"]

    func ownTracks(_ request: Request, _ target: RequestTarget) async throws(HTTPProblem) -> Response {
        let source = "POST /api/owntracks"
        if let problem = target.queryProblem { try await refuse(.undecodable(problem.reason), source: source) }
        let queryUser = try target.single("u")
        let queryDevice = try target.single("d")
        let body = try await body(of: request, source: source)
        var id: String?
        if let user = request.headers[Self.limitUser] ?? queryUser, !user.isEmpty,
            let device = request.headers[Self.limitDevice] ?? queryDevice, !device.isEmpty
        {
            id = "\(user)-\(device)"
        }
        let decoded = PositionDecoder.decodeOwnTracks(body, deviceID: id ?? "")
        // A message of another `_type` is answered `[]` whoever sent it: it names no device.
        if case let .failure(rejection) = decoded, rejection.isIgnored {
            _ = try await ingest([.failure(rejection)], source: source)
            return .json(Array("[]".utf8))
        }
        guard let id else {
            try await refuse(
                .missingField("X-Limit-U and X-Limit-D"), source: source,
                saying: "the user and device are needed: headers X-Limit-U and X-Limit-D, or query parameters u and d")
        }
        // A bad id goes through the core too, to be counted as a rejection like any other.
        let position: Result<ForeignPosition, PositionRejection> =
            if let problem = DeviceIDRules.problem(id) {
                .failure(.badDeviceID(problem))
            } else {
                decoded.map { ForeignPosition(device: id, position: $0) }
            }
        let outcome = try await ingest([position], source: source).first
        if case let .rejected(reason)? = outcome { throw .badRequest(reason) }
        return .json(Array("[]".utf8))
    }

    private static let limitUser = HTTPField.Name("X-Limit-U")!
    private static let limitDevice = HTTPField.Name("X-Limit-D")!

    /// The body of a request of positions: one over 1 MiB is counted as a rejected message too, as
    /// the same payload over MQTT is, and answered 413.
    private func body(of request: Request, source: String) async throws(HTTPProblem) -> [UInt8] {
        do {
            return try await RequestBody.read(request)
        } catch where error.status == .contentTooLarge {
            let length = request.headers[.contentLength].flatMap { Int($0) } ?? RequestBody.maxBytes + 1
            _ = try await ingest([.failure(.tooLarge(bytes: length, limit: RequestBody.maxBytes))], source: source)
            throw error
        }
    }

    /// A request that holds no position to feed (a body that is not JSON, no device named) is
    /// counted as a rejected message, as the same payload over MQTT is, and answered 400 with
    /// `reason` (the rejection's own by default).
    private func refuse(_ rejection: PositionRejection, source: String, saying reason: String? = nil) async throws(HTTPProblem) -> Never {
        _ = try await ingest([.failure(rejection)], source: source)
        throw .badRequest(reason ?? rejection.description)
    }

    private func ingest(
        _ items: [Result<ForeignPosition, PositionRejection>], source: String
    ) async throws(HTTPProblem) -> [IngestOutcome] {
        do {
            return try await api.ingest(items, source: source)
        } catch {
            throw HTTPProblem(status: .serviceUnavailable, reason: error.reason)
        }
    }
}
