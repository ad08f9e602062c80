import FleetFenceCodecs
import FleetFenceService
import Hummingbird

/// `/healthz`, `/readyz` and `/metrics`: what an SRE's probes and scraper ask.
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
}
