import FleetFenceTesting
import Synchronization
import Testing

@testable import MQTT

/// `onSubscribed`: told once per connection when the broker has acknowledged the subscriptions,
/// not at the CONNACK. A broker that lost the session drops what is published in between, so a
/// caller that says it listens (the service's `online`) says it from here.
@Suite(.timeLimit(.minutes(1)))
struct SubscribedTests {
    @Test func toldAfterTheSubscriptionsHoldOncePerConnectionAlsoAfterABrokerRestart() async throws {
        try await withLocalBroker { broker in
            let events = Mutex<[String]>([])
            let received = Mutex<[String]>([])
            let other = try await broker.connectedClient()
            let client = try MQTTClient(options: broker.clientOptions(), logger: testLogger())
            client.onConnectionChange { up in events.withLock { $0.append(up ? "up" : "down") } }
            client.onMessage { message in received.withLock { $0.append(String(decoding: message.payload, as: UTF8.self)) } }
            client.subscribe(["heard/#"], qos: 1)
            client.onSubscribed { [weak client] in
                // Told after the SUBACK, not at the CONNACK with the SUBSCRIBE still unanswered.
                let settled = client?.subscriptionsSettled == true
                let count = events.withLock { events in
                    events.append(settled ? "subscribed" : "subscribed before the SUBACK")
                    return events.filter { $0 == "subscribed" }.count
                }
                // From here on it is heard, also from a broker that restarted without the session.
                other.publish(topic: "heard/now", payload: "after subscribed \(count)", qos: 1)
            }
            try await client.connect(timeout: .seconds(5))
            #expect(await eventually { received.withLock { $0 } == ["after subscribed 1"] })

            try broker.restart()  // no persistence: the broker forgot the subscription
            #expect(await eventually(timeout: .seconds(15)) { received.withLock { $0 }.count == 2 })
            #expect(received.withLock { $0 } == ["after subscribed 1", "after subscribed 2"])
            #expect(events.withLock { $0 } == ["up", "subscribed", "down", "up", "subscribed"])
            await client.disconnect()
            await other.disconnect()
        }
    }

    @Test func toldAtTheConnectWhenThereIsNothingToSubscribe() async throws {
        try await withLocalBroker { broker in
            let events = Mutex<[String]>([])
            let client = try MQTTClient(options: broker.clientOptions(), logger: testLogger())
            client.onConnectionChange { up in events.withLock { $0.append(up ? "up" : "down") } }
            client.onSubscribed { events.withLock { $0.append("subscribed") } }
            try await client.connect(timeout: .seconds(5))
            #expect(await eventually { events.withLock { $0 } == ["up", "subscribed"] })
            // Once per connection: a subscription or an unsubscription later is not told again.
            client.subscribe(["later/#"], qos: 1)
            #expect(await client.waitForSubscriptions(timeout: .seconds(5)))
            client.unsubscribe(["later/#"])
            #expect(await client.waitForSubscriptions(timeout: .seconds(5)))
            #expect(events.withLock { $0 } == ["up", "subscribed"])
            await client.disconnect()
        }
    }

    /// What the split bus asks of its listener when the publisher comes back: a round trip that
    /// tells `onSubscribed` again, and leaves every subscription as it was, one named like the
    /// round trip's own filter included.
    @Test func confirmingTellsAgainOnceTheBrokerAnswersAndUnsubscribesNothing() async throws {
        try await withLocalBroker { broker in
            let events = Mutex<[String]>([])
            let received = Mutex<[String]>([])
            let other = try await broker.connectedClient()
            let client = try MQTTClient(options: broker.clientOptions(), logger: testLogger())
            client.onMessage { message in received.withLock { $0.append(message.topic) } }
            client.subscribe(["heard/#", ClientEngine.roundTripFilter], qos: 1)
            client.onSubscribed { [weak client] in
                // Told once the UNSUBACK came, which is what the split bus waits for.
                let answered = client?.subscriptionsSettled == true && client?.confirmingSubscriptions == false
                events.withLock { $0.append(answered ? "subscribed" : "subscribed before the answer") }
            }
            try await client.connect(timeout: .seconds(5))
            #expect(await eventually { events.withLock { $0 } == ["subscribed"] })

            client.confirmSubscriptions()
            #expect(await eventually { events.withLock { $0 } == ["subscribed", "subscribed"] })
            client.confirmSubscriptions()
            #expect(await eventually { events.withLock { $0 } == ["subscribed", "subscribed", "subscribed"] })
            other.publish(topic: "heard/a", payload: "1", qos: 1)
            other.publish(topic: ClientEngine.roundTripFilter, payload: "2", qos: 1)
            #expect(await eventually { received.withLock { $0 }.count == 2 })
            #expect(received.withLock { $0 } == ["heard/a", ClientEngine.roundTripFilter])
            await client.disconnect()
            await other.disconnect()

            // Disconnected: nothing is sent, nothing told.
            client.confirmSubscriptions()
            try await Task.sleep(for: .milliseconds(200))
            #expect(events.withLock { $0 }.count == 3)
        }
    }
}
