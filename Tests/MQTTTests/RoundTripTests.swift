import FleetFenceTesting
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import MQTT

@Suite(.timeLimit(.minutes(1)))
struct RoundTripTests {
    @Test(arguments: [Int32(0), 1])
    func publishedMessagesArrive(qos: Int32) async throws {
        try await withLocalBroker { broker in
            let collector = try await MessageCollector.start(url: broker.url, filters: ["fleet/+/position"], qos: qos)
            let publisher = try await broker.connectedClient()
            for index in 0..<10 {
                let result = publisher.publish(topic: "fleet/truck-\(index)/position", payload: "{\"n\":\(index)}", qos: qos)
                #expect(result == .sent)
            }
            publisher.publish(topic: "elsewhere/x", payload: "ignored", qos: qos)

            let received = await collector.messages(matching: "fleet/+/position", count: 10)
            #expect(received.map(\.text) == (0..<10).map { "{\"n\":\($0)}" })
            #expect(received.allSatisfy { $0.qos == qos && !$0.retain })
            #expect(await publisher.waitForPublishes(timeout: .seconds(5)))
            #expect(publisher.unacknowledgedPublishes == 0)
            #expect(!collector.collected.contains { $0.topic == "elsewhere/x" })

            await publisher.disconnect()
            await collector.stop()
        }
    }

    /// The network thread reads packet after packet while the socket has more, up to a turn's
    /// cap: a burst many turns long, with payloads that end a read halfway (64 KiB), arrives
    /// whole and in order, and at QoS 1 each is acknowledged.
    @Test(arguments: [Int32(0), 1])
    func aBurstLongerThanATurnArrivesWholeAndInOrder(qos: Int32) async throws {
        try await withLocalBroker { broker in
            let collector = try await MessageCollector.start(url: broker.url, filters: ["burst/#"], qos: qos)
            let publisher = try await broker.connectedClient()
            let count = LoopContext.packetsPerTurn * 10 + 7
            func payload(_ index: Int) -> [UInt8] {
                index % 50 == 0 ? Array(repeating: UInt8(index % 256), count: 65_536) : Array("\(index)".utf8)
            }
            for index in 0..<count { publisher.publish(topic: "burst/\(index)", payload: payload(index), qos: qos) }
            let received = await collector.messages(matching: "burst/#", count: count, timeout: .seconds(20))
            #expect(received.count == count)
            #expect(received.map(\.topic) == (0..<count).map { "burst/\($0)" })
            #expect(received.map(\.payload) == (0..<count).map(payload))
            #expect(await publisher.waitForPublishes(timeout: .seconds(10)))
            await publisher.disconnect()
            await collector.stop()
        }
    }

    /// PUBACKs waiting in the socket are read in one turn, also when each releases a publish held
    /// beyond the in-flight window: libmosquitto queues it, and its wake socketpair, never read
    /// (`LoopWake`) and full after a few hundred packets, leaves `errno` EAGAIN as a socket run dry
    /// does. (The same holds for a subscriber's QoS 1 messages, each of which queues a PUBACK.)
    @Test func acknowledgementsThatReleasePublishesAreReadManyATurn() async throws {
        try await withLocalBroker { broker in
            struct Seen { var armed = false, turnsAfterBlock: Int?, turnsAtWindow: Int? }
            let seen = Mutex(Seen())
            let client = try MQTTClient(options: broker.clientOptions(), logger: testLogger())
            let first = 2_000
            client.onAcknowledged { [weak client] in
                guard let client, seen.withLock({ $0.armed }) else { return }
                if seen.withLock({ $0.turnsAfterBlock == nil }) {
                    // The network thread held at the first PUBACK: the window's others arrive meanwhile.
                    usleep(300_000)
                    let turns = client.networkTurns
                    seen.withLock { $0.turnsAfterBlock = turns }
                }
                if client.publishTickets.acknowledgedThrough >= UInt64(first + 100) {
                    let turns = client.networkTurns
                    seen.withLock { seen in if seen.turnsAtWindow == nil { seen.turnsAtWindow = turns } }
                }
            }
            try await client.connect(timeout: .seconds(5))
            // Enough packets for the socketpair to be full, as it is in a service that has run a while.
            for index in 0..<first { client.publish(topic: "window/\(index)", payload: "\(index)", qos: 1) }
            #expect(await client.waitForPublishes(timeout: .seconds(20)))
            seen.withLock { $0.armed = true }
            for index in 0..<1_000 { client.publish(topic: "window/\(index)", payload: "\(index)", qos: 1) }
            #expect(await client.waitForPublishes(timeout: .seconds(20)))
            let (after, atWindow) = seen.withLock { ($0.turnsAfterBlock, $0.turnsAtWindow) }
            // Read one a turn, the window's 99 others took 98 turns; drained, 0 to 3 under a full
            // parallel test run (some arrive after the hold).
            let turns = try #require(atWindow) - #require(after)
            #expect(turns < 25, "\(turns) turns to read the PUBACKs that waited")
            await client.disconnect()
        }
    }

    @Test func binaryPayloadsArriveUnchanged() async throws {
        try await withLocalBroker { broker in
            let collector = try await MessageCollector.start(url: broker.url, filters: ["bin"])
            let publisher = try await broker.connectedClient()
            let bytes: [UInt8] = [0, 1, 2, 255, 0, 128]
            publisher.publish(topic: "bin", payload: bytes, qos: 1)
            publisher.publish(topic: "bin", payload: [UInt8](), qos: 1)
            let received = await collector.messages(count: 2)
            #expect(received.map(\.payload) == [bytes, []])
            await publisher.disconnect()
            await collector.stop()
        }
    }

    @Test func retainedMessageReachesALateSubscriber() async throws {
        try await withLocalBroker { broker in
            try await publishOnce(url: broker.url, topic: "fleetfence/status", payload: "online", retain: true)

            let collector = try await MessageCollector.start(url: broker.url, filters: ["fleetfence/status"])
            let message = await collector.next(topicPrefix: "fleetfence/status")
            #expect(message?.text == "online")
            #expect(message?.retain == true)
            await collector.stop()
        }
    }

    @Test func handlersRunAndClientCanPublishFromInsideOne() async throws {
        try await withLocalBroker { broker in
            let collector = try await MessageCollector.start(url: broker.url, filters: ["echo/out"])
            // An echo client: republishes from its message handler, on the network thread.
            let echo = try MQTTClient(options: broker.clientOptions(), logger: testLogger())
            echo.onMessage { [weak echo] message in
                echo?.publish(topic: "echo/out", payload: message.payload, qos: 1)
            }
            echo.subscribe(["echo/in"], qos: 1)
            try await echo.connect(timeout: .seconds(5))
            #expect(await echo.waitForSubscriptions(timeout: .seconds(5)))

            try await publishOnce(url: broker.url, topic: "echo/in", payload: "ping")
            #expect(await collector.next(topicPrefix: "echo/out")?.text == "ping")
            await echo.disconnect()
            await collector.stop()
        }
    }
}
