import FleetFenceTesting
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ReconnectTests {
    @Test func clientReconnectsAfterBrokerRestartAndSubscribesAgain() async throws {
        try await withLocalBroker { broker in
            let changes = Mutex<[Bool]>([])
            let subscriber = try MQTTClient(options: broker.clientOptions(), logger: testLogger())
            subscriber.onConnectionChange { connected in changes.withLock { $0.append(connected) } }
            let collector = Mutex<[String]>([])
            subscriber.onMessage { message in collector.withLock { $0.append(message.topic) } }
            subscriber.subscribe(["restart/#"], qos: 1)
            try await subscriber.connect(timeout: .seconds(5))
            #expect(await subscriber.waitForSubscriptions(timeout: .seconds(5)))

            // Without persistence the restarted broker knows no subscriptions: receiving
            // proves the client subscribed again on its own.
            try broker.restart()
            #expect(await eventually { changes.withLock { $0 } == [true, false, true] })
            #expect(await subscriber.waitForSubscriptions(timeout: .seconds(10)))
            try await publishOnce(url: broker.url, topic: "restart/after", payload: "hello")
            #expect(await eventually { collector.withLock { $0 } == ["restart/after"] })

            await subscriber.disconnect()
            #expect(changes.withLock { $0 } == [true, false, true, false])
        }
    }

    /// A publish made as the connection comes back goes after what was queued while the broker was
    /// away. Made here from the connection handler, which runs inside libmosquitto's handling of
    /// the CONNACK, before libmosquitto resends what it queued; the service's journal writer
    /// publishes at any moment, that one included. Sent first, the newer retained message was
    /// replaced by the older one resent after it.
    @Test func publishesMadeAsTheConnectionReturnsFollowThoseQueuedBeforeIt() async throws {
        try await withLocalBroker { broker in
            let client = try MQTTClient(options: broker.clientOptions(), logger: testLogger())
            let connects = Mutex(0)
            let results = Mutex<[MQTTPublishResult]>([])
            client.onConnectionChange { [weak client] connected in
                guard connected, connects.withLock({ $0 += 1; return $0 }) == 2, let client else { return }
                let result = client.publish(topic: "order/fence", payload: "newer", qos: 1, retain: true)
                // Refused at once, as on a live connection, though it would wait: never a ticket
                // for a message libmosquitto will not take.
                let refused = [client.publish(topic: "order/\u{1}", payload: "x", qos: 1), client.publish(topic: "", payload: "x", qos: 1)]
                results.withLock { $0 = [result] + refused }
            }
            try await client.connect(timeout: .seconds(5))

            broker.stop()
            #expect(await eventually { !client.isConnected })
            #expect(client.publish(topic: "order/fence", payload: "older", qos: 1, retain: true) == .queued)
            #expect(client.publish(topic: "order/other", payload: "older", qos: 1, retain: true) == .queued)

            try broker.restart()
            #expect(await eventually(timeout: .seconds(15)) { results.withLock { !$0.isEmpty } })
            let got = results.withLock { $0 }
            #expect(got.first?.isAccepted == true)
            #expect(got.dropFirst().allSatisfy { if case .dropped(.rejected) = $0 { true } else { false } }, "\(got)")
            #expect(await client.waitForPublishes(timeout: .seconds(15)))
            let reader = try await MessageCollector.start(url: broker.url, filters: ["order/#"])
            let retained = await reader.messages(matching: "order/#", count: 2)
            #expect(retained.first { $0.topic == "order/fence" }?.text == "newer")
            #expect(retained.first { $0.topic == "order/other" }?.text == "older")
            await reader.stop()
            await client.disconnect()
        }
    }

    @Test func persistentSessionReceivesWhatWasPublishedWhileOffline() async throws {
        try await withTemporaryDirectory { persistence in
            try await withLocalBroker(persistenceDirectory: persistence) { broker in
                let options = broker.clientOptions(clientID: "fleetfence-persistent", cleanSession: false)
                let first = try await MessageCollector.start(options: options, filters: ["positions/#"], qos: 1)
                await first.stop()

                let publisher = try await broker.connectedClient()
                for index in 0..<5 {
                    #expect(publisher.publish(topic: "positions/\(index)", payload: "p\(index)", qos: 1) == .sent)
                }
                #expect(await publisher.waitForPublishes(timeout: .seconds(5)))
                await publisher.disconnect()

                // The broker saves sessions and queued messages on SIGTERM and loads them again.
                try broker.restart()

                let second = try await MessageCollector.start(options: options, filters: ["positions/#"], qos: 1)
                let received = await second.messages(matching: "positions/#", count: 5)
                #expect(received.map(\.text) == ["p0", "p1", "p2", "p3", "p4"])
                await second.stop()
            }
        }
    }
}
