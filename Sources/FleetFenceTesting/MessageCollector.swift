import FleetFenceService
import Foundation
import LocalBroker
import MQTT
import Synchronization

/// Subscribes through a ``MessageBus`` (a real broker's `MQTTClient` or an ``InMemoryBroker``'s
/// client) and keeps everything that arrives, for a test to await and inspect. Waits end when the
/// message they wait for arrives, not at the next poll.
public final class MessageCollector: Sendable {
    public let bus: any MessageBus
    /// The libmosquitto client, when the collector follows a real broker.
    public var client: MQTTClient? { bus as? MQTTClient }
    private let store = Store()

    /// A separate object so the handler can hold it without holding the collector.
    private final class Store: Sendable {
        struct Waiter {
            var condition: @Sendable ([ReceivedMessage]) -> Bool
            var continuation: CheckedContinuation<Void, Never>
        }

        struct State {
            var messages: [ReceivedMessage] = []
            var consumed: Set<Int> = []
            var waiters: [Int: Waiter] = [:]
            var nextWaiter = 0
        }

        let state = Mutex(State())

        func append(_ message: ReceivedMessage) {
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.messages.append(message)
                let ready = state.waiters.filter { $0.value.condition(state.messages) }
                for id in ready.keys { state.waiters[id] = nil }
                return ready.values.map(\.continuation)
            }
            for waiter in ready { waiter.resume() }
        }

        /// Returns once `condition` holds for the messages received, or after `timeout`.
        func wait(timeout: Duration, until condition: @escaping @Sendable ([ReceivedMessage]) -> Bool) async {
            let id = state.withLock { state in
                defer { state.nextWaiter += 1 }
                return state.nextWaiter
            }
            let timer = Task { [self] in
                try? await Task.sleep(for: timeout)
                state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume()
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if condition(state.messages) { return true }
                    state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                    return false
                }
                if now { continuation.resume() }
            }
            timer.cancel()
        }
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
        let client = try MQTTClient(options: options, logger: testLogger("collector"))
        let collector = MessageCollector(bus: client)
        client.subscribe(filters, qos: qos)
        try await client.connect(timeout: timeout)
        guard await client.waitForSubscriptions(timeout: timeout) else {
            await client.disconnect()
            throw TestSupportError("collector subscriptions \(filters) not acknowledged within \(timeout)")
        }
        return collector
    }

    /// A collector on an in-memory broker: subscribed, and its retained messages handled, on return.
    public static func start(
        broker: InMemoryBroker, filters: [String], qos: Int32 = 1, clientID: String? = nil, cleanSession: Bool = true
    ) async throws -> MessageCollector {
        let client = broker.client(id: clientID, cleanSession: cleanSession)
        let collector = MessageCollector(bus: client)
        client.subscribe(filters, qos: qos)
        try await client.connect(timeout: .seconds(1))
        await broker.settled()
        return collector
    }

    private init(bus: any MessageBus) {
        self.bus = bus
        bus.onMessage { [store] message in
            store.append(ReceivedMessage(topic: message.topic, payload: message.payloadBytes, qos: message.qos, retain: message.retain))
        }
    }

    /// Everything received so far, in arrival order.
    public var collected: [ReceivedMessage] {
        store.state.withLock { $0.messages }
    }

    /// Returns `true` once `condition` holds for what was received, `false` after `timeout`.
    @discardableResult
    public func wait(
        timeout: Duration = .seconds(5), until condition: @escaping @Sendable ([ReceivedMessage]) -> Bool
    ) async -> Bool {
        await store.wait(timeout: timeout, until: condition)
        return condition(collected)
    }

    /// The oldest message not yet returned by `next` whose topic starts with
    /// `topicPrefix`, waiting for it up to `timeout`; `nil` on timeout.
    public func next(topicPrefix: String = "", timeout: Duration = .seconds(5)) async -> ReceivedMessage? {
        let take = { @Sendable [store] () -> ReceivedMessage? in
            store.state.withLock { state in
                guard let index = state.messages.indices.first(where: { index in
                    !state.consumed.contains(index) && state.messages[index].topic.hasPrefix(topicPrefix)
                }) else { return nil }
                state.consumed.insert(index)
                return state.messages[index]
            }
        }
        if let found = take() { return found }
        await store.wait(timeout: timeout) { messages in messages.contains { $0.topic.hasPrefix(topicPrefix) } }
        return take()
    }

    /// Waits until at least `count` received messages match the MQTT `filter`, and
    /// returns all that match (fewer if `timeout` passes first).
    public func messages(matching filter: String = "#", count: Int, timeout: Duration = .seconds(5)) async -> [ReceivedMessage] {
        let matching = { @Sendable (messages: [ReceivedMessage]) in
            messages.filter { MQTTTopicFilter.matches(filter, topic: $0.topic) }
        }
        await store.wait(timeout: timeout) { matching($0).count >= count }
        return matching(collected)
    }

    /// Forgets everything received so far.
    public func clear() {
        store.state.withLock { state in
            state.messages = []
            state.consumed = []
        }
    }

    public func stop() async {
        await bus.disconnect()
    }
}
