import Foundation
import LocalBroker
import MQTT
import Synchronization

/// Subscribes through an `MQTTClient` and keeps everything that arrives, for a test to
/// await and inspect.
public final class MessageCollector: Sendable {
    public let client: MQTTClient
    private let store = Store()

    /// A separate object so the handler can hold it without holding the collector.
    private final class Store: Sendable {
        let state = Mutex<(messages: [ReceivedMessage], consumed: Set<Int>)>(([], []))
    }

    /// Connects, subscribes to `filters` and returns once the broker acknowledged them,
    /// so that anything published afterwards is collected. `url` may list a cluster's nodes,
    /// separated by commas: the collector fails over between them.
    public static func start(
        url: String, filters: [String], qos: Int32 = 1,
        clientID: String? = nil, cleanSession: Bool = true, timeout: Duration = .seconds(5)
    ) async throws -> MessageCollector {
        var options = MQTTOptions(
            url: MQTTURL(host: "127.0.0.1"),
            clientID: clientID ?? "collector-\(UUID().uuidString.prefix(8))",
            cleanSession: cleanSession
        )
        options.setBrokers(try MQTTURL.list(parsing: url))
        return try await start(options: options, filters: filters, qos: qos, timeout: timeout)
    }

    public static func start(options: MQTTOptions, filters: [String], qos: Int32 = 1, timeout: Duration = .seconds(5)) async throws -> MessageCollector {
        let collector = MessageCollector(client: try MQTTClient(options: options, logger: testLogger("collector")))
        collector.client.subscribe(filters, qos: qos)
        try await collector.client.connect(timeout: timeout)
        guard await collector.client.waitForSubscriptions(timeout: timeout) else {
            await collector.client.disconnect()
            throw TestSupportError("collector subscriptions \(filters) not acknowledged within \(timeout)")
        }
        return collector
    }

    private init(client: MQTTClient) {
        self.client = client
        client.onMessage { [store] message in
            let copy = ReceivedMessage(topic: message.topic, payload: message.payloadBytes, qos: message.qos, retain: message.retain)
            store.state.withLock { $0.messages.append(copy) }
        }
    }

    /// Everything received so far, in arrival order.
    public var collected: [ReceivedMessage] {
        store.state.withLock { $0.messages }
    }

    /// The oldest message not yet returned by `next` whose topic starts with
    /// `topicPrefix`, waiting for it up to `timeout`; `nil` on timeout.
    public func next(topicPrefix: String = "", timeout: Duration = .seconds(5)) async -> ReceivedMessage? {
        var found: ReceivedMessage?
        _ = await poll(timeout: timeout) {
            found = store.state.withLock { state in
                guard let index = state.messages.indices.first(where: { index in
                    !state.consumed.contains(index) && state.messages[index].topic.hasPrefix(topicPrefix)
                }) else { return nil }
                state.consumed.insert(index)
                return state.messages[index]
            }
            return found != nil
        }
        return found
    }

    /// Waits until at least `count` received messages match the MQTT `filter`, and
    /// returns all that match (fewer if `timeout` passes first).
    public func messages(matching filter: String = "#", count: Int, timeout: Duration = .seconds(5)) async -> [ReceivedMessage] {
        var matching: [ReceivedMessage] = []
        _ = await poll(timeout: timeout) {
            matching = collected.filter { MQTTTopicFilter.matches(filter, topic: $0.topic) }
            return matching.count >= count
        }
        return matching
    }

    /// Forgets everything received so far.
    public func clear() {
        store.state.withLock { $0 = ([], []) }
    }

    public func stop() async {
        await client.disconnect()
    }

    private func poll(timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
