import FleetFenceCodecs
import FleetFenceService
import Hummingbird

/// `/healthz`, `/readyz`, `/metrics` and `/api/memory`: what an SRE's probes and scraper ask, and
/// where the memory goes.
struct HealthEndpoint: Sendable {
    let api: any FleetFenceAPI

    func healthz() -> Response {
        .json(Array(#"{"status":"ok"}"#.utf8))
    }

    /// Ready when connected to the broker, the journal open and writable, the fences file applied.
    func readyz() -> Response {
        let reasons = api.notReadyReasons
        var json = JSONWriter(capacity: 128)
        json.beginObject()
        json.key("status")
        guard !reasons.isEmpty else {
            json.string("ready")
            json.endObject()
            return .json(json.bytes)
        }
        json.string("not ready")
        json.key("reasons")
        json.beginArray()
        for reason in reasons { json.string(reason) }
        json.endArray()
        json.endObject()
        return .json(json.bytes, status: .serviceUnavailable)
    }

    func metrics() -> Response {
        .bytes(api.metricsExposition(), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }

    /// `/api/memory`'s one parameter.
    static let memoryParameters: Set<String> = ["heap_free"]

    /// On NIO's pool of blocking threads: a count walks every device (docs/http.md "Memory").
    func memory(_ target: RequestTarget) async throws(HTTPProblem) -> Response {
        let heapFree: Bool
        switch try target.single("heap_free") ?? "false" {
        case "true": heapFree = true
        case "false": heapFree = false
        case let other: throw .badRequest("heap_free must be true or false, got \(other)")
        }
        let api = api
        let report = try await offloaded("memory not counted") { try api.memory(heapFree: heapFree) }
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("devices")
        json.integer(Int64(report.devices))
        json.key("parts")
        json.beginObject()
        for (name, bytes) in report.parts {
            json.key(name)
            json.integer(Int64(bytes))
        }
        json.endObject()
        json.key("counted")
        json.integer(Int64(report.counted))
        for (key, bytes) in [("resident", report.resident), ("heap_free", report.heapFree)] {
            json.key(key)
            if let bytes { json.integer(Int64(bytes)) } else { json.null() }
        }
        json.endObject()
        return .json(json.bytes)
    }
}
