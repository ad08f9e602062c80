import MQTT

/// The one publisher of every phase: a plain `MQTTClient` pushing a prepared stream, either as
/// fast as the broker takes it or paced at a rate.
final class StreamPublisher: Sendable {
    struct Outcome: Sendable {
        var messages = 0
        var dropped = 0
        var startNanos: UInt64 = 0
        var endNanos: UInt64 = 0

        /// Rate at which `publish` accepted the messages (not what the broker delivered).
        var acceptRate: Double {
            let seconds = Monotonic.seconds(from: startNanos, to: endNanos)
            return seconds > 0 ? Double(messages) / seconds : 0
        }
    }

    let client: MQTTClient
    /// QoS 1 publishes awaiting PUBACK at most: libmosquitto's 16-bit message ids must not wrap
    /// within the unacknowledged set (mosquitto_pub -q 1 loses messages past 65,535 unacknowledged: message ids wrap).
    static let maxUnacknowledged = 20_000

    init(client: MQTTClient) {
        self.client = client
    }

    static func connect(url: String, clientID: String = "fleetbench-publisher") async throws -> StreamPublisher {
        StreamPublisher(client: try await BenchClients.connect(url: url, clientID: clientID))
    }

    /// Publishes the whole stream as fast as the client takes it. At QoS 0 libmosquitto writes on
    /// this thread while the socket takes data and queues the rest; at QoS 1 the unacknowledged
    /// window is held below `maxUnacknowledged`.
    func burst(_ stream: PositionStream, qos: Int32) -> Outcome {
        var outcome = Outcome()
        outcome.startNanos = Monotonic.nanos()
        stream.withMessages { index, topic, payload in
            if qos > 0, index & 255 == 0 {
                while client.unacknowledgedPublishes > Self.maxUnacknowledged { Monotonic.sleep(nanoseconds: 100_000) }
            }
            if case .dropped = client.publish(topic: topic, payload: payload, qos: qos) { outcome.dropped += 1 }
            outcome.messages += 1
            return true
        }
        outcome.endNanos = Monotonic.nanos()
        return outcome
    }

    /// Publishes at `rate` messages per second (sleeping, never spinning, between due messages).
    /// Returns the publish time of each index in `timed`, in the same order.
    func paced(_ stream: PositionStream, qos: Int32, rate: Double, timed: [Int]) -> (Outcome, [UInt64]) {
        var outcome = Outcome()
        var times = [UInt64](repeating: 0, count: timed.count)
        var nextTimed = 0
        let nanosPerMessage = 1e9 / rate
        outcome.startNanos = Monotonic.nanos()
        stream.withMessages { index, topic, payload in
            let dueAt = outcome.startNanos + UInt64(Double(index) * nanosPerMessage)
            let now = Monotonic.nanos()
            if dueAt > now + 50_000 { Monotonic.sleep(nanoseconds: dueAt - now) }
            if nextTimed < timed.count, timed[nextTimed] == index {
                times[nextTimed] = Monotonic.nanos()
                nextTimed += 1
            }
            if case .dropped = client.publish(topic: topic, payload: payload, qos: qos) { outcome.dropped += 1 }
            outcome.messages += 1
            return true
        }
        outcome.endNanos = Monotonic.nanos()
        return (outcome, times)
    }

    /// Lets libmosquitto write what it still holds before the connection closes.
    func finish() async {
        _ = await client.waitForPublishes(timeout: .seconds(30))
        try? await Task.sleep(for: .milliseconds(200))
        await client.disconnect()
    }
}
