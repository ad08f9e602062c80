import Foundation
import Logging
import MQTT
import Synchronization

/// Subscribes to the service's alerts and tour events and keeps them, each stamped with its
/// arrival time.
///
/// Its session is persistent (clean session off) while the run lasts, so that a broker restarted
/// from its persistence file in the middle of a run queues the alerts the service publishes before
/// this client is back (docs/simulator.md "Simulator"); `stop()` discards the session again.
final class AlertCollector: Sendable {
    let client: MQTTClient
    private let store: Store
    private let logger: Logger

    /// Separate from the collector, so that the client's handler does not keep the collector.
    private final class Store: Sendable {
        let alerts = Mutex<[ReceivedAlert]>([])
        let rejected = Atomic<Int>(0)
    }

    var alerts: [ReceivedAlert] { store.alerts.withLock { $0 } }
    var count: Int { store.alerts.withLock { $0.count } }
    var rejected: Int { store.rejected.load(ordering: .relaxed) }

    /// `onAlert` runs on the client's network thread, one alert at a time.
    init(options: MQTTOptions, prefix: String, logger: Logger, onAlert: (@Sendable (ReceivedAlert) -> Void)?) throws {
        var options = options
        options.cleanSession = false
        client = try MQTTClient(options: options, logger: logger)
        self.logger = logger
        let store = Store()
        self.store = store
        // A tour's events are three levels under `progress/`; its retained progress, two (docs/rules.md "Tours").
        client.subscribe(["\(prefix)/alerts/#", "\(prefix)/progress/+/+/+"], qos: 1)
        client.onMessage { message in
            let received = Date().timeIntervalSince1970
            do {
                let alert = try ReceivedAlert.decode(message.payloadBytes, received: received)
                store.alerts.withLock { $0.append(alert) }
                onAlert?(alert)
            } catch {
                store.rejected.add(1, ordering: .relaxed)
                logger.warning("not an alert on \(message.topic): \(error)")
            }
        }
    }

    /// Connects and returns once the subscription is acknowledged: every alert after that is seen.
    func start(timeout: Duration) async throws {
        // Alerts queued for a session an earlier run with this client id left behind are not this run's.
        try await Self.discardSession(client.options, timeout: timeout, logger: logger)
        try await client.connect(timeout: timeout)
        guard await client.waitForSubscriptions(timeout: timeout) else {
            await client.disconnect()
            throw SimulationError.subscriptionTimedOut
        }
        // Refused, the run would hear no alert and score every one missed.
        let refused = client.refusedSubscriptions
        guard refused.isEmpty else {
            await client.disconnect()
            throw SimulationError.subscriptionRefused(refused)
        }
    }

    /// Disconnects and discards the session: a broker would otherwise queue alerts for it until
    /// its `persistent_client_expiration`.
    func stop() async {
        await client.disconnect()
        try? await Self.discardSession(client.options, timeout: .seconds(5), logger: logger)
    }

    /// A connection with clean session on ends the stored session of its client id (MQTT 3.1.1).
    private static func discardSession(_ options: MQTTOptions, timeout: Duration, logger: Logger) async throws {
        var clean = options
        clean.cleanSession = true
        let client = try MQTTClient(options: clean, logger: logger)
        try await client.connect(timeout: timeout)
        await client.disconnect()
    }
}
