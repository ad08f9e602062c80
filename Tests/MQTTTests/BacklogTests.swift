import FleetFenceTesting
import Testing

@Suite(.timeLimit(.minutes(1)))
struct BacklogTests {
    @Test func qos1BacklogIsBoundedWhileDisconnectedAndFlushedAfterReconnect() async throws {
        try await withLocalBroker { broker in
            var options = broker.clientOptions()
            options.maxQueuedPublishes = 5
            let client = try await broker.connectedClient(options)

            broker.stop()
            #expect(await eventually { !client.isConnected })

            let results = (0..<8).map { client.publish(topic: "backlog/\($0)", payload: "x", qos: 1) }
            #expect(results == Array(repeating: .queued, count: 5) + Array(repeating: .dropped(.backlogFull(limit: 5)), count: 3))
            #expect(client.publish(topic: "backlog/qos0", payload: "x", qos: 0) == .dropped(.notConnected))
            #expect(client.unacknowledgedPublishes == 5)

            // libmosquitto sends the queued five after reconnecting; the broker acks them.
            try broker.restart()
            #expect(await client.waitForPublishes(timeout: .seconds(15)))
            #expect(client.unacknowledgedPublishes == 0)
            #expect(client.publish(topic: "backlog/again", payload: "x", qos: 1) == .sent)
            await client.disconnect()
        }
    }

    /// Tickets count accepted QoS 1 publishes only, and are acknowledged in order once the
    /// broker has them: what the service's outbox marks its alerts published by.
    @Test func ticketsAreAcknowledgedOnlyOnceTheBrokerHasThePublishes() async throws {
        try await withLocalBroker { broker in
            var options = broker.clientOptions()
            options.maxQueuedPublishes = 3
            let client = try await broker.connectedClient(options)
            #expect(client.publish(topic: "t/1", payload: "x", qos: 1) == .sent)
            #expect(client.publish(topic: "t/0", payload: "x", qos: 0) == .sent)
            #expect(await eventually { client.publishTickets == PublishTickets(issued: 1, acknowledgedThrough: 1) })

            broker.stop()
            #expect(await eventually { !client.isConnected })
            let results = (2...5).map { client.publish(topic: "t/\($0)", payload: "x", qos: 1) }
            #expect(results == [.queued, .queued, .queued, .dropped(.backlogFull(limit: 3))])
            #expect(client.publishTickets == PublishTickets(issued: 4, acknowledgedThrough: 1))
            try await Task.sleep(for: .milliseconds(200))
            #expect(client.publishTickets.acknowledgedThrough == 1, "nothing is acknowledged while the broker is away")

            try broker.restart()
            #expect(await client.waitForPublishes(timeout: .seconds(15)))
            #expect(client.publishTickets == PublishTickets(issued: 4, acknowledgedThrough: 4))
            await client.disconnect()
        }
    }

    @Test func publishOutsideConnectIsDroppedAsNotStarted() async throws {
        try await withLocalBroker { broker in
            let client = try MQTTClient(options: broker.clientOptions(), logger: testLogger())
            #expect(client.publish(topic: "t", payload: "x", qos: 1) == .dropped(.notStarted))
            try await client.connect(timeout: .seconds(5))
            #expect(client.publish(topic: "t", payload: "x", qos: 1) == .sent)
            #expect(await client.waitForPublishes(timeout: .seconds(5)))
            await client.disconnect()
            await client.disconnect() // idempotent
            #expect(client.publish(topic: "t", payload: "x", qos: 1) == .dropped(.notStarted))
            #expect(client.publish(topic: "t", payload: "x", qos: 0) == .dropped(.notStarted))

            // The same client can connect again.
            try await client.connect(timeout: .seconds(5))
            #expect(client.publish(topic: "t", payload: "x", qos: 1) == .sent)
            #expect(await client.waitForPublishes(timeout: .seconds(5)))
            await client.disconnect()
        }
    }

    @Test func invalidTopicIsRejectedNotCounted() async throws {
        try await withLocalBroker { broker in
            let client = try await broker.connectedClient()
            guard case .dropped(.rejected) = client.publish(topic: "bad/+/topic", payload: "x", qos: 1) else {
                Issue.record("a wildcard in a publish topic must be rejected")
                return
            }
            #expect(client.unacknowledgedPublishes == 0)
            await client.disconnect()
        }
    }
}
