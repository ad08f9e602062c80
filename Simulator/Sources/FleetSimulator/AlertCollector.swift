import Foundation
import Logging
import MQTT
import Synchronization

/// Subscribes to the service's alerts and tour events and keeps them, each stamped with its
/// arrival time.
final class AlertCollector: Sendable {
    let client: MQTTClient
    private let store: Store

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
        self.options = options
        self.logger = logger
        client = try MQTTClient(options: options, logger: logger)
        let store = Store()
        self.store = store
        // A tour's events are three levels under `progress/`; its retained progress, two (README "Tours").
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

    private let options: MQTTOptions
    private let logger: Logger

    /// Connects and returns once the subscription is acknowledged: every alert after that is seen.
    func start(timeout: Duration) async throws {
        try await client.connect(timeout: timeout)
        guard await client.waitForSubscriptions(timeout: timeout) else {
            await client.disconnect()
            throw SimulationError.subscriptionTimedOut
        }
    }

    /// Disconnects. A persistent session (several brokers) is then ended with a clean connect
    /// under the same client id, so that no broker keeps queueing alerts for a run that is over.
    func finish() async {
        await client.disconnect()
        guard !options.cleanSession else { return }
        var clean = options
        clean.cleanSession = true
        do {
            let ending = try MQTTClient(options: clean, logger: logger)
            try await ending.connect(timeout: .seconds(5))
            await ending.disconnect()
        } catch {
            logger.notice("could not end the alerts session \(options.clientID ?? ""): \(error)")
        }
    }
}
