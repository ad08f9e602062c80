@testable import FleetFenceService
import FleetFenceTesting
import MQTT
import Synchronization
import Testing

/// The service's two connections as one bus: heard on the session `broker.client_id` names, said
/// on `<client_id>-out`, and one connection state, `online` only while both are up.
@Suite(.timeLimit(.minutes(1)))
struct SplitBusTests {
    private final class Setup: Sendable {
        let broker = InMemoryBroker()
        let listener: InMemoryClient
        let publisher: InMemoryClient
        let bus: SplitBus
        let changes = Mutex<[Bool]>([])
        /// How often `onSubscribed` was told.
        let subscribed = Mutex(0)

        init() {
            let options = MQTTOptions(
                url: MQTTURL(host: "in-memory"), clientID: "svc", cleanSession: false,
                will: MQTTWill(topic: "svc/status", payload: Array("offline".utf8), qos: 1, retain: true))
            listener = try! broker.factory(options) as! InMemoryClient
            publisher = try! broker.factory(SplitBus.publisherOptions(options)) as! InMemoryClient
            bus = SplitBus(listener: listener, publisher: publisher)
            bus.onConnectionChange { [self] up in changes.withLock { $0.append(up) } }
            bus.onSubscribed { [self] in subscribed.withLock { $0 += 1 } }
        }

        /// How often `onSubscribed` was told, once the clients' queues have run.
        func subscribedCount() async -> Int {
            await broker.settled()
            return subscribed.withLock { $0 }
        }

        /// What the handler was told, once it is `expected` or 5 s passed: the handlers run on
        /// the clients' queues, and a full parallel run once read the list before they had.
        func told(_ expected: [Bool]) async -> [Bool] {
            await broker.settled()
            let deadline = ContinuousClock.now + .seconds(5)
            while changes.withLock({ $0 }) != expected, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
            return changes.withLock { $0 }
        }
    }

    @Test func theListenerKeepsTheSessionAndThePublisherSpeaksUnderItsOwnID() {
        let setup = Setup()
        #expect(setup.listener.options.clientID == "svc")
        #expect(!setup.listener.options.cleanSession)
        #expect(setup.publisher.options.clientID == "svc-out")
        #expect(setup.publisher.options.cleanSession, "a client that subscribes to nothing needs no session")
        #expect(setup.publisher.options.will == setup.listener.options.will)
        #expect(setup.publisher.options.threadName == "mqtt-publish")
    }

    @Test func messagesAreHeardOnOneConnectionAndPublishedOnTheOther() async throws {
        let setup = Setup()
        let heard = Mutex<[String]>([])
        setup.bus.onMessage { message in heard.withLock { $0.append(message.topic) } }
        setup.bus.subscribe(["in/#"], qos: 1)
        let outside = try await MessageCollector.start(broker: setup.broker, filters: ["out/#"])
        try await setup.bus.connect(timeout: .seconds(1))
        #expect(await setup.told([true]) == [true])
        #expect(setup.bus.isConnected)

        let device = try await setup.broker.connectedClient(id: "device")
        device.publish(topic: "in/a", payload: Array("1".utf8), qos: 1)
        let result = setup.bus.publish(topic: "out/b", payload: Array("2".utf8), qos: 1)
        #expect(result.isAccepted)
        #expect(await outside.messages(matching: "out/#", count: 1).map(\.text) == ["2"])
        await setup.broker.settled()
        #expect(heard.withLock { $0 } == ["in/a"])
        #expect(setup.broker.publishers(of: "out/#") == ["svc-out"])
        #expect(setup.broker.subscribers(of: "in/a") == ["svc"])
        // The acknowledgements are the publisher's: what waits for them waits on that connection.
        #expect(setup.bus.publishTickets == setup.publisher.publishTickets)
        #expect(setup.publisher.publishTickets.issued == 1)
        #expect(setup.listener.publishTickets.issued == 0)
        await setup.bus.disconnect()
        await outside.stop()
    }

    @Test func eitherConnectionLostIsTheBusLostAndItsWillSaysOffline() async throws {
        let setup = Setup()
        let status = try await MessageCollector.start(broker: setup.broker, filters: ["svc/status"])
        try await setup.bus.connect(timeout: .seconds(1))
        #expect(await setup.told([true]) == [true])

        // The listener cut: nothing is heard any more, so the bus is down and the will says so.
        setup.listener.lostConnection(publishWill: true)
        #expect(await setup.told([true, false]) == [true, false])
        #expect(!setup.bus.isConnected)
        #expect(await status.messages(matching: "svc/status", count: 1).map(\.text) == ["offline"])

        // The publisher cut too, then the listener back: still down, nothing more to tell. (Each
        // client tells on its own queue: the loss is let through first, as two network threads
        // would tell them in the order they happened.)
        setup.publisher.lostConnection(publishWill: true)
        await setup.broker.settled()
        setup.listener.reconnect()
        #expect(await setup.told([true, false]) == [true, false])
        #expect(!setup.bus.isConnected)

        // Both up again: told once, so that `online` goes out again.
        setup.publisher.reconnect()
        #expect(await setup.told([true, false, true]) == [true, false, true])
        #expect(setup.bus.isConnected)

        // The publisher alone cut and back.
        setup.publisher.lostConnection(publishWill: true)
        setup.publisher.reconnect()
        #expect(await setup.told([true, false, true, false, true]) == [true, false, true, false, true])

        // Told that the subscriptions hold after each `true`, the listener's having been made again
        // (`online` is said there, so that a `set` sent on seeing it is heard).
        #expect(await setup.subscribedCount() == 3)

        // A clean end: told false once, and no will.
        status.clear()
        await setup.bus.disconnect()
        #expect(await setup.told([true, false, true, false, true, false]) == [true, false, true, false, true, false])
        await setup.broker.settled()
        #expect(status.collected.isEmpty)
        await status.stop()
    }

    /// A broker restart the listener's thread has not read yet (far behind the positions) when the
    /// publisher is back: the listener's subscriptions were the lost broker's, and `onSubscribed`
    /// (the service's `online`) waits until the broker has them again.
    @Test func aListenerThatHasNotNoticedItsLossIsNotHeardWhenThePublisherComesBack() async throws {
        let setup = Setup()
        setup.bus.subscribe(["in/#"], qos: 1)
        try await setup.bus.connect(timeout: .seconds(1))
        #expect(await setup.told([true]) == [true])
        #expect(await setup.subscribedCount() == 1)

        setup.listener.brokerForgotUnnoticed()
        setup.publisher.lostConnection(publishWill: false)
        await setup.broker.settled()
        setup.publisher.reconnect()
        // Both seemed up for a moment; the listener's round trip found its connection gone.
        #expect(await setup.told([true, false, true, false]) == [true, false, true, false])
        #expect(await setup.subscribedCount() == 1)
        #expect(setup.broker.subscribers(of: "in/a").isEmpty)

        setup.listener.reconnect()
        #expect(await setup.told([true, false, true, false, true]) == [true, false, true, false, true])
        #expect(await setup.subscribedCount() == 2)
        #expect(setup.broker.subscribers(of: "in/a") == ["svc"])

        // The publisher alone cut and back, the listener up all along: heard again after its
        // round trip, told once.
        setup.publisher.lostConnection(publishWill: false)
        await setup.broker.settled()
        setup.publisher.reconnect()
        #expect(await setup.told([true, false, true, false, true, false, true]) == [true, false, true, false, true, false, true])
        #expect(await setup.subscribedCount() == 3)
        await setup.bus.disconnect()
    }

    /// The service itself, not only the bus: a `GeofenceService` that went back to one client would
    /// pass every test above.
    @Test func theServiceListensUnderItsClientIDAndSaysEverythingOnTheOther() async throws {
        try await withService { h in
            let broker = try #require(h.memory)
            try await h.position("truck-7", north: 300, ts: T)
            try await h.position("truck-7", north: 100, ts: T + 10)
            try await h.position("truck-7", north: 100, ts: T + 12)
            try #require(await h.waitForAlerts("truck-7", count: 1).count == 1)
            await broker.settled()
            let out: Set = [h.clientID + "-out"]
            for filter in ["fleetfence/alerts/#", "fleetfence/state/#", "fleetfence/fences/+", "fleetfence/status"] {
                #expect(broker.publishers(of: filter) == out, "\(filter)")
            }
            #expect(broker.subscribers(of: "fleet/truck-7/position") == [h.clientID])
            // The test's collector follows `fleetfence/#` too.
            let setters = broker.subscribers(of: "fleetfence/fences/depot/set")
            #expect(setters.contains(h.clientID) && !setters.contains(h.clientID + "-out"), "\(setters)")
        }
    }
}
