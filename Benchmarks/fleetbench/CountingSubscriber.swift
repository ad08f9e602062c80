import MQTT
import Synchronization

/// The broker ceiling's far end: a subscriber that only counts, and notes when the first and the
/// last message arrived.
final class CountingSubscriber: Sendable {
    private let counter: Counter
    let client: MQTTClient

    final class Counter: Sendable {
        let count = Atomic<Int>(0)
        let first = Atomic<UInt64>(0)
        let last = Atomic<UInt64>(0)
        /// The client's network thread, where every message is read and counted.
        let threadID = Atomic<Int32>(0)

        func record() {
            let now = Monotonic.nanos()
            if count.add(1, ordering: .relaxed).newValue == 1 {
                first.store(now, ordering: .relaxed)
                threadID.store(ProcCPU.currentThreadID(), ordering: .relaxed)
            }
            last.store(now, ordering: .relaxed)
        }
    }

    private init(client: MQTTClient, counter: Counter) {
        self.client = client
        self.counter = counter
    }

    /// Subscribes at QoS 1, as the service does, so deliveries match the published QoS.
    static func start(url: String, filter: String) async throws -> CountingSubscriber {
        let counter = Counter()
        let client = try await BenchClients.connect(
            url: url, clientID: "fleetbench-counter", subscribing: [filter], qos: 1,
            onMessage: { @Sendable _ in counter.record() })
        return CountingSubscriber(client: client, counter: counter)
    }

    var count: Int { counter.count.load(ordering: .relaxed) }

    /// CPU time of the network thread so far: what receiving the messages through libmosquitto
    /// costs a client that does nothing with them. Read before `stop()`, while the thread lives.
    var networkThreadCPUSeconds: Double? {
        let thread = counter.threadID.load(ordering: .relaxed)
        return thread > 0 ? ProcCPU.seconds(statFile: "/proc/self/task/\(thread)/stat") : nil
    }
    var firstNanos: UInt64 { counter.first.load(ordering: .relaxed) }
    var lastNanos: UInt64 { counter.last.load(ordering: .relaxed) }

    /// Waits for `expected` messages; gives up after `stall` seconds without a new one.
    func wait(for expected: Int, stall: Double = 5) -> Int {
        var seen = count
        var lastProgress = Monotonic.nanos()
        while seen < expected {
            Monotonic.sleep(nanoseconds: 5_000_000)
            let now = count
            if now != seen {
                seen = now
                lastProgress = Monotonic.nanos()
            } else if Monotonic.since(lastProgress) > stall {
                break
            }
        }
        return seen
    }

    func stop() async {
        await client.disconnect()
    }
}
