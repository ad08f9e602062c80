import FleetFenceTesting
import Foundation
import Synchronization
import Testing

/// A broker can refuse a subscription (SUBACK 0x80); the client must say so, so that a deaf
/// service reports itself unready, and ask again until the broker grants it.
@Suite(.timeLimit(.minutes(1)))
struct RefusedSubscriptionTests {
    @Test func refusedFilterIsReportedAndRetriedUntilGranted() async throws {
        try await withRefusingBroker { broker in
            let received = Mutex<[String]>([])
            let client = try MQTTClient(options: broker.clientOptions(), logger: testLogger())
            client.onMessage { message in received.withLock { $0.append(message.topic) } }
            try await client.connect(timeout: .seconds(5))
            client.subscribe(["open/#", "closed/#"], qos: 1)
            #expect(await client.waitForSubscriptions(timeout: .seconds(5)))
            #expect(client.refusedSubscriptions == ["closed/#"])

            // Still refused: the retry keeps it listed.
            client.retryRefusedSubscriptions()
            #expect(await client.waitForSubscriptions(timeout: .seconds(5)))
            #expect(client.refusedSubscriptions == ["closed/#"])

            let admin = try await broker.connectedClient()
            DynamicSecurity.allowSubscriptions(to: "closed/#", using: admin)
            #expect(await eventually {
                client.retryRefusedSubscriptions()
                return client.refusedSubscriptions.isEmpty
            })

            // Granted now: messages on it arrive.
            admin.publish(topic: "closed/x", payload: "hello", qos: 1)
            #expect(await eventually { received.withLock { $0.contains("closed/x") } })
            await admin.disconnect()
            await client.disconnect()
        }
    }

    @Test func unsubscribingForgetsTheRefusal() async throws {
        try await withRefusingBroker { broker in
            let client = try await broker.connectedClient()
            client.subscribe(["closed/#"], qos: 0)
            #expect(await client.waitForSubscriptions(timeout: .seconds(5)))
            #expect(client.refusedSubscriptions == ["closed/#"])
            client.unsubscribe(["closed/#"])
            #expect(client.refusedSubscriptions.isEmpty)
            await client.disconnect()
        }
    }

    /// Anonymous clients may subscribe to `open/#` only, and may change that ACL.
    private func withRefusingBroker(_ body: (LocalMosquitto) async throws -> Void) async throws {
        try await withTemporaryDirectory { directory in
            let config = try DynamicSecurity.brokerConfig(allowingSubscriptionsTo: ["open/#"], directory: directory)
            try await withLocalBroker(extraConfig: config, body)
        }
    }
}
