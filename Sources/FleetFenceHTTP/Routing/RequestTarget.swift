/// A request's path and query, percent-decoded. Path segments keep their bytes: a device id is
/// the exact bytes of its topic level (docs/operations.md "Limits and failures"), so `%C3%BC` and `u%CC%88`
/// name two devices.
struct RequestTarget: Sendable {
    /// The path as sent, for the message of a 404.
    var path: String
    var segments: [String]
    /// In order, repeats kept (`device=a&device=b`).
    var query: [(name: String, value: String)]
    /// Why the query did not decode (`query` is then empty). The responder refuses it before any
    /// route, except where the query carries positions: their endpoints count it as a rejected
    /// position, as the same bytes over MQTT are counted (docs/trackers.md "Connecting trackers").
    var queryProblem: HTTPProblem?

    /// Before a request's own is read.
    static let empty = RequestTarget(path: "/", segments: [], query: [])

    private init(path: String, segments: [String], query: [(name: String, value: String)]) {
        self.path = path
        self.segments = segments
        self.query = query
    }

    init(path: String, query: String?) throws(HTTPProblem) {
        self.path = path
        var segments: [String] = []
        for raw in path.split(separator: "/", omittingEmptySubsequences: true) {
            segments.append(try Self.percentDecoded(raw.utf8, plusIsSpace: false, in: "the path"))
        }
        self.segments = segments
        do {
            self.query = try Self.pairs(query ?? "", in: "the query")
        } catch {
            self.query = []
            self.queryProblem = error
        }
    }

    /// `name=value&...` pairs (a query, or a form body), percent-decoded; `part` names it in the
    /// reason of a 400.
    static func pairs(_ text: String, in part: String) throws(HTTPProblem) -> [(name: String, value: String)] {
        var pairs: [(String, String)] = []
        for item in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try percentDecoded(parts[0].utf8, plusIsSpace: true, in: part)
            let value = try percentDecoded((parts.count > 1 ? parts[1] : "").utf8, plusIsSpace: true, in: part)
            pairs.append((name, value))
        }
        return pairs
    }

    /// The path Hummingbird's router is given: the segments as decoded here, each byte but the
    /// unreserved ones (RFC 3986) escaped again, so that `/api/%66ences/a%2Fb` routes as
    /// `/api/fences/{a/b}` did before the router, and no decoded byte (a space, a control
    /// character, `?`) can end or split the path; `nil` when the path has no escape, and routes as
    /// sent. A path parameter of it goes through ``pathParameter(_:)``.
    var routedPath: String? {
        guard path.utf8.contains(UInt8(ascii: "%")) else { return nil }
        var routed: [UInt8] = []
        for segment in segments {
            routed.append(UInt8(ascii: "/"))
            for byte in segment.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    routed.append(byte)
                default:
                    let hex = Array("0123456789ABCDEF".utf8)
                    routed += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
                }
            }
        }
        return routed.isEmpty ? "/" : String(decoding: routed, as: UTF8.self)
    }

    /// A path parameter as the router captured it from ``routedPath`` (or the path as sent, which
    /// then has no escape), back to its exact bytes.
    static func pathParameter(_ captured: String) -> String {
        guard captured.utf8.contains(UInt8(ascii: "%")) else { return captured }
        return (try? percentDecoded(captured.utf8, plusIsSpace: false, in: "the path")) ?? captured
    }

    /// Refuses a query parameter the path does not know, naming it.
    func checkQuery(allowed: Set<String>) throws(HTTPProblem) {
        if let unknown = query.first(where: { !allowed.contains($0.name) }) {
            let known = allowed.isEmpty ? "it takes none" : "known: " + allowed.sorted().joined(separator: ", ")
            throw .badRequest("unknown query parameter \(unknown.name) (\(known))")
        }
    }

    func values(_ name: String) -> [String] { query.filter { $0.name == name }.map(\.value) }

    /// The parameter's one value; given twice is an error.
    func single(_ name: String) throws(HTTPProblem) -> String? {
        let all = values(name)
        guard all.count <= 1 else { throw .badRequest("query parameter \(name) is given \(all.count) times") }
        return all.first
    }

    /// `limit`: 1 to `maximum`, default `fallback`.
    func limit(default fallback: Int, maximum: Int) throws(HTTPProblem) -> Int {
        guard let text = try single("limit") else { return fallback }
        guard let value = Int(text), (1...maximum).contains(value) else {
            throw .badRequest("limit must be a whole number from 1 to \(maximum), got \(text)")
        }
        return value
    }

    private static func percentDecoded(_ bytes: some Collection<UInt8>, plusIsSpace: Bool, in part: String) throws(HTTPProblem) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hex), let low = iterator.next().flatMap(hex) else {
                    throw .badRequest("\(part) has an invalid percent-encoding")
                }
                out.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                out.append(UInt8(ascii: " "))
            default:
                out.append(byte)
            }
        }
        // Ids come from MQTT topics, which are UTF-8: anything else names nothing.
        guard let text = String(validating: out, as: UTF8.self) else {
            throw .badRequest("\(part) is not UTF-8 once percent-decoded")
        }
        return text
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
