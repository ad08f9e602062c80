import MQTT
import Synchronization

/// The service's two connections to the broker, seen as one ``MessageBus``: one listens
/// (positions, `set` topics; the session `broker.client_id` names), one publishes (alerts,
/// states, registry, status).
///
/// Why two: the broker's acknowledgement of a QoS 1 publish comes back on the connection that
/// sent it, behind whatever the broker sent before it. On the listening connection that is the
/// positions: when the network thread is half a second behind them (a saturated machine in the
/// soak, docs/performance.md "Soak"), each acknowledgement is half a second late, and with 100
/// publishes in flight the alerts leave at 200 a second while 4,000 a second are confirmed. On
/// a connection of its own an acknowledgement takes the broker's round trip.
///
/// Both connections carry the will (`offline`): the status says `online` only while the service
/// both hears and speaks. Connection changes are told as one: `true` once both are up (after
/// either came back), `false` once either is lost; one call at a time. `onSubscribed` is told once
/// both are up and the listener's subscriptions are acknowledged (after either came back): a
/// broker that lost the listener's session drops what is published before that.
final class SplitBus: MessageBus {
    private let listener: any MessageBus
    private let publisher: any MessageBus

    private struct Links {
        var listening = false
        var publishing = false
        /// The listener's subscriptions acknowledged on its current connection, and confirmed
        /// since the publisher last came back (``publisherChanged(_:)``).
        var hearing = false
        /// What the handler was last told.
        var told = false
        /// `subscribed` was told since the last loss of either connection.
        var toldHearing = false
        var handler: (@Sendable (Bool) -> Void)?
        var subscribed: (@Sendable () -> Void)?
    }

    /// Held while the handlers run: the two network threads tell their changes one at a time, in
    /// the order they report them. A loss one thread has not reported yet while the other comes
    /// back makes a brief `true` and then `false`, never a loss left untold. The handlers may
    /// publish (no lock of this bus is taken there).
    private let links = Mutex(Links())

    init(listener: any MessageBus, publisher: any MessageBus) {
        self.listener = listener
        self.publisher = publisher
        listener.onConnectionChange { [weak self] up in
            self?.changed { links in
                links.listening = up
                links.hearing = false
            }
        }
        // Not while a round trip is unanswered: a SUBACK told late, after the publisher came back
        // and one was asked, does not stand in for its answer.
        listener.onSubscribed { [weak self] in
            guard let self else { return }
            changed(connection: false) { $0.hearing = !self.listener.confirmingSubscriptions }
        }
        publisher.onConnectionChange { [weak self] up in self?.publisherChanged(up) }
    }

    /// When the broker restarts, the publisher may be back (its first backoff is 0.5 s) before the
    /// listener's thread, behind the positions, has read the end of its own connection: the
    /// listener's subscriptions would count though the broker has lost them, and `online` would be
    /// said before a `set` can be heard. So whenever the publisher comes back beside a listener
    /// that stayed up, the listener is heard again only once the broker answers it.
    private func publisherChanged(_ up: Bool) {
        let confirm = changed { links in
            links.publishing = up
            guard up, links.listening else { return false }
            links.hearing = false
            return true
        }
        // Outside the lock, as the listener's own calls are: its handlers take this lock.
        if confirm { listener.confirmSubscriptions() }
    }

    /// The listening connection's client id: `broker.client_id`, whose session keeps the
    /// subscriptions and queued positions across restarts. The publishing one takes this suffix.
    static let publisherSuffix = "-out"

    /// The options of the publishing connection, from the listening one's: a client id of its own
    /// and a clean session, since the broker has nothing to keep for a client that subscribes to
    /// nothing (libmosquitto resends unacknowledged QoS 1 publishes after a reconnect either way).
    static func publisherOptions(_ options: MQTTOptions) -> MQTTOptions {
        var options = options
        options.clientID = options.clientID.map { $0 + publisherSuffix }
        options.cleanSession = true
        options.threadName = "mqtt-publish"
        return options
    }

    /// `connection`: a connection came or went (not only the listener's subscriptions).
    @discardableResult
    private func changed<Result>(connection: Bool = true, _ update: (inout Links) -> Result) -> Result {
        links.withLock { links in
            let result = update(&links)
            let up = links.listening && links.publishing
            // Either came back while the other was up: tell `true` again (the service starts a
            // round of the registry, which the broker may have lost with the connection).
            if connection, up || links.told {
                links.told = up
                links.handler?(up)
            }
            // Likewise: the service publishes `online`, which the will of the one lost may have
            // replaced.
            let hearing = up && links.hearing
            if hearing, !links.toldHearing { links.subscribed?() }
            links.toldHearing = hearing
            return result
        }
    }

    func confirmSubscriptions() {
        listener.confirmSubscriptions()
    }

    var confirmingSubscriptions: Bool { listener.confirmingSubscriptions }

    func onMessage(_ handler: @escaping @Sendable (MQTTMessage) -> Void) {
        listener.onMessage(handler)
    }

    func onConnectionChange(_ handler: @escaping @Sendable (Bool) -> Void) {
        links.withLock { $0.handler = handler }
    }

    func onSubscribed(_ handler: @escaping @Sendable () -> Void) {
        links.withLock { $0.subscribed = handler }
    }

    func subscribe(_ filters: [String], qos: Int32) {
        listener.subscribe(filters, qos: qos)
    }

    /// The publishing connection first, so that nothing the listener hears waits for a way out.
    func connect(timeout: Duration) async throws {
        try await publisher.connect(timeout: timeout)
        do {
            try await listener.connect(timeout: timeout)
        } catch {
            await publisher.disconnect()
            throw error
        }
    }

    func publish(topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> MQTTPublishResult {
        publisher.publish(topic: topic, payload: payload, qos: qos, retain: retain)
    }

    var refusedSubscriptions: [String] { listener.refusedSubscriptions }

    func retryRefusedSubscriptions() {
        listener.retryRefusedSubscriptions()
    }

    var isConnected: Bool { listener.isConnected && publisher.isConnected }

    var publishTickets: PublishTickets { publisher.publishTickets }

    func onAcknowledged(_ handler: @escaping @Sendable () -> Void) {
        publisher.onAcknowledged(handler)
    }

    func waitForPublishes(timeout: Duration) async -> Bool {
        await publisher.waitForPublishes(timeout: timeout)
    }

    /// The listener first: nothing more is heard, then what was said is finished.
    func disconnect() async {
        await listener.disconnect()
        await publisher.disconnect()
    }
}
