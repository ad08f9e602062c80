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
