import CoreMetrics
import Metrics
import Prometheus
import Synchronization

/// The service's Prometheus metrics (docs/http.md "Metrics"), through swift-metrics with a registry of
/// this service's own: no process-wide bootstrap, so that several services in one process (the
/// tests) each count their own.
///
/// Nothing here runs per position: the tick hands over the counters the core keeps anyway, once a
/// second, as deltas; the journal's writer times each transaction, the publisher each alert.
public final class ServiceMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    private let positions: [Outcome: CoreMetrics.Counter]
    private let alertCounters: Mutex<[String: CoreMetrics.Counter]>
    private let devices: CoreMetrics.Gauge
    private let fences: CoreMetrics.Gauge
    private let mqttConnected: CoreMetrics.Gauge
    private let streams: CoreMetrics.Gauge
    private let journalCommit: CoreMetrics.Timer
    private let unacknowledged: CoreMetrics.Gauge
    private let journalSteps: CoreMetrics.Gauge
    private let journalHeld: CoreMetrics.Gauge
    private let alertDelay: CoreMetrics.Timer
    private let mqttRefusals: CoreMetrics.Counter
    private let factory: PrometheusMetricsFactory
    private let last = Mutex(ReadModel.Counters())

    enum Outcome: String, CaseIterable {
        case accepted, stale, rejected, ignored, late
        case tooLate = "too_late"
    }

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        // A commit takes a fraction of a millisecond idle and tens of milliseconds behind a
        // checkpoint; an alert's delay is milliseconds on loopback, seconds when the journal stalls.
        factory.durationHistogramBuckets["fleetfence_journal_commit_seconds"] = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .seconds(1),
        ]
        factory.durationHistogramBuckets["fleetfence_alert_delay_seconds"] = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        // From an event's confirmation to its delivery: milliseconds to a live receiver, hours
        // to one that was down (docs/webhooks.md "Webhooks").
        factory.durationHistogramBuckets["fleetfence_webhook_seconds"] = [
            .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2),
            .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(300), .seconds(900), .seconds(3_600),
            .seconds(21_600), .seconds(86_400),
        ]
        self.factory = factory
        positions = Dictionary(uniqueKeysWithValues: Outcome.allCases.map { outcome in
            (outcome, CoreMetrics.Counter(label: "fleetfence_positions_total", dimensions: [("outcome", outcome.rawValue)], factory: factory))
        })
        // The events every fence can alert, present from the start so that a dashboard sees zeros.
        alertCounters = Mutex(Dictionary(uniqueKeysWithValues: ["enter", "exit", "dwell"].map { event in
            (event, CoreMetrics.Counter(label: "fleetfence_alerts_total", dimensions: [("event", event)], factory: factory))
        }))
        devices = CoreMetrics.Gauge(label: "fleetfence_devices", factory: factory)
        fences = CoreMetrics.Gauge(label: "fleetfence_fences", factory: factory)
        mqttConnected = CoreMetrics.Gauge(label: "fleetfence_mqtt_connected", factory: factory)
        streams = CoreMetrics.Gauge(label: "fleetfence_http_streams", factory: factory)
        journalCommit = CoreMetrics.Timer(label: "fleetfence_journal_commit_seconds", factory: factory)
        unacknowledged = CoreMetrics.Gauge(label: "fleetfence_mqtt_unacknowledged", factory: factory)
        journalSteps = CoreMetrics.Gauge(label: "fleetfence_journal_waiting", dimensions: [("kind", "steps")], factory: factory)
        journalHeld = CoreMetrics.Gauge(label: "fleetfence_journal_waiting", dimensions: [("kind", "devices")], factory: factory)
        alertDelay = CoreMetrics.Timer(label: "fleetfence_alert_delay_seconds", factory: factory)
        mqttRefusals = CoreMetrics.Counter(label: "fleetfence_mqtt_refused_total", factory: factory)
        mqttConnected.record(0)
    }

    /// The Prometheus text format.
    public func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(4096)
        registry.emit(into: &buffer)
        return buffer
    }

    /// From the tick: what grew since the last call.
    func update(_ counters: ReadModel.Counters, streams subscribers: Int) {
        let previous = last.withLock { last in
            defer { last = counters }
            return last
        }
        func add(_ outcome: Outcome, _ now: Int, _ before: Int) {
            if now > before { positions[outcome]?.increment(by: Int64(now - before)) }
        }
        add(.accepted, counters.accepted, previous.accepted)
        add(.stale, counters.stale, previous.stale)
        add(.rejected, counters.rejected, previous.rejected)
        add(.ignored, counters.ignored, previous.ignored)
        add(.late, counters.late, previous.late)
        add(.tooLate, counters.tooLate, previous.tooLate)
        for (event, count) in counters.alertsByEvent where count > previous.alertsByEvent[event, default: 0] {
            let counter = alertCounters.withLock { counters in
                if let counter = counters[event] { return counter }
                let counter = CoreMetrics.Counter(label: "fleetfence_alerts_total", dimensions: [("event", event)], factory: factory)
                counters[event] = counter
                return counter
            }
            counter.increment(by: Int64(count - previous.alertsByEvent[event, default: 0]))
        }
        devices.record(counters.devices)
        fences.record(counters.fences)
        streams.record(subscribers)
    }

    /// From the tick: what waits. QoS 1 messages the broker has not acknowledged (in flight, or
    /// in the client behind its window: a broker slow to acknowledge shows here first), and the
    /// journal's writer's steps not yet taken and devices whose rows it holds back.
    func backlog(unacknowledged: UInt64, journalSteps: Int, journalDevices: Int) {
        self.unacknowledged.record(Int64(clamping: unacknowledged))
        self.journalSteps.record(journalSteps)
        journalHeld.record(journalDevices)
    }

    func connectionChanged(_ connected: Bool) {
        mqttConnected.record(connected ? 1 : 0)
    }

    func journalCommitted(in duration: Duration) {
        journalCommit.recordNanoseconds(Self.nanoseconds(duration))
    }

    /// A message libmosquitto refused for good (never published).
    func mqttRefused() {
        mqttRefusals.increment()
    }

    func alertPublished(afterSeconds delay: Double) {
        guard delay.isFinite else { return }
        alertDelay.recordNanoseconds(Int64(max(0, delay) * 1e9))
    }

    /// The metrics of one webhook, labelled with its name.
    func webhook(_ name: String) -> WebhookMetrics {
        WebhookMetrics(name: name, factory: factory)
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
