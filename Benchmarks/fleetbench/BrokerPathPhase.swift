import MQTT
import Synchronization

/// The floor under the alert latency: the same paced load, on topics the service does not read,
/// from our publisher through the broker to a plain subscriber. The probes' confirming samples are
/// timed from publish to arrival, as the service's alerts are.
extension BenchRun {
    func measureBrokerPath(_ load: LatencyLoad, rate: Double, name: String) async throws -> BenchResults.Latency {
        let root = "bench-path"
        let stream = load.stream.retargeted { root + $0.dropFirst("fleet".count) }
        let arrivals = ProbeArrivals(topicPrefix: "\(root)/probe")
        let subscriber = try await BenchClients.connect(
            url: brokerURL, clientID: "fleetbench-path-subscriber", subscribing: ["\(root)/+/position"], qos: 1,
            onMessage: { @Sendable message in arrivals.record(message) })
        let publisher = try await StreamPublisher.connect(url: brokerURL, clientID: "fleetbench-path-publisher")
        let (outcome, published) = publisher.paced(stream, qos: 0, rate: rate, timed: load.confirmIndices)
        let topics = load.probes.map { root + $0.topic.dropFirst("fleet".count) }
        let waitStart = Monotonic.nanos()
        var thirds = [UInt64?](repeating: nil, count: topics.count)
        while Monotonic.since(waitStart) < 5 {
            thirds = arrivals.thirdArrivals(of: topics)
            if !thirds.contains(where: { $0 == nil }) { break }
            Monotonic.sleep(nanoseconds: 10_000_000)
        }
        await publisher.finish()
        await subscriber.disconnect()

        writeLatencies(probes: load.probes, published: published, arrivals: thirds, start: outcome.startNanos, name: name)
        var latency = LatencyLoad.figures(published: published, arrivals: thirds)
        latency.targetRate = rate
        latency.achievedRate = Double(outcome.messages) / Monotonic.seconds(from: outcome.startNanos, to: outcome.endNanos)
        latency.published = stream.count
        latency.processed = latency.published
        progress(String(format: "broker path at %.0f msg/s: p50 %.3f ms, p99 %.3f ms, max %.3f ms",
                        rate, latency.p50Milliseconds, latency.p99Milliseconds, latency.maxMilliseconds))
        return latency
    }
}

/// Arrival time of the third message on each probe topic (its confirming sample).
final class ProbeArrivals: Sendable {
    private let prefix: [UInt8]
    private let seen = Mutex<[String: (count: Int, third: UInt64)]>([:])

    init(topicPrefix: String) {
        prefix = Array(topicPrefix.utf8)
    }

    func record(_ message: MQTTMessage) {
        let now = Monotonic.nanos()
        let matches = message.withTopicBytes { topic in topic.count >= prefix.count && topic.prefix(prefix.count).elementsEqual(prefix) }
        guard matches else { return }
        let topic = message.topic
        seen.withLock { seen in
            var entry = seen[topic] ?? (0, 0)
            entry.count += 1
            if entry.count == 3 { entry.third = now }
            seen[topic] = entry
        }
    }

    func thirdArrivals(of topics: [String]) -> [UInt64?] {
        seen.withLock { seen in topics.map { topic in seen[topic].flatMap { $0.count >= 3 ? $0.third : nil } } }
    }
}
