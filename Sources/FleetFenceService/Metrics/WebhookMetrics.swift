import CoreMetrics
import Prometheus

/// One webhook's metrics (docs/webhooks.md "Webhooks" and docs/http.md "Metrics"): deliveries by outcome, rows queued,
/// and the time from an event's confirmation to its delivery.
struct WebhookMetrics: Sendable {
    private let delivered: CoreMetrics.Counter
    private let retried: CoreMetrics.Counter
    private let dead: CoreMetrics.Counter
    private let queued: CoreMetrics.Gauge
    private let seconds: CoreMetrics.Timer

    init(name: String, factory: PrometheusMetricsFactory) {
        func deliveries(_ outcome: String) -> CoreMetrics.Counter {
            CoreMetrics.Counter(
                label: "fleetfence_webhook_deliveries_total", dimensions: [("webhook", name), ("outcome", outcome)],
                factory: factory)
        }
        delivered = deliveries("delivered")
        retried = deliveries("retried")
        dead = deliveries("dead")
        queued = CoreMetrics.Gauge(label: "fleetfence_webhook_queued", dimensions: [("webhook", name)], factory: factory)
        seconds = CoreMetrics.Timer(label: "fleetfence_webhook_seconds", dimensions: [("webhook", name)], factory: factory)
    }

    func deliveredOne(afterSeconds delay: Double) {
        delivered.increment()
        if delay.isFinite { seconds.recordNanoseconds(Int64(max(0, delay) * 1e9)) }
    }

    func retriedOne() { retried.increment() }
    func deadOne() { dead.increment() }
    func queued(_ count: Int) { queued.record(count) }
}
