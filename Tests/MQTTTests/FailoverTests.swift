import FleetFenceTesting
import Foundation
import LocalBroker
import Synchronization
import Testing

/// Several brokers of one cluster (docs/several-instances.md "Several instances"): the client takes the first that
/// answers and, when it is lost, the next, without waiting for the lost one to return.
@Suite(.timeLimit(.minutes(1)))
struct FailoverTests {
    @Test func aDeadFirstBrokerIsPassedOverAtStart() async throws {
        try await withLocalBroker { live in
            let dead = MQTTURL(host: "127.0.0.1", port: try LocalMosquitto.freeLoopbackPort())
            var options = live.clientOptions()
            options.failoverURLs = [options.url]
            options.url = dead
            let client = try MQTTClient(options: options, logger: testLogger())
            try await client.connect(timeout: .seconds(5))
            #expect(client.isConnected)
            await client.disconnect()
        }
    }

    @Test func noBrokerAnsweringIsAnErrorNamingTheLastTried() async throws {
        let first = MQTTURL(host: "127.0.0.1", port: try LocalMosquitto.freeLoopbackPort())
        let second = MQTTURL(host: "127.0.0.1", port: try LocalMosquitto.freeLoopbackPort())
        var options = MQTTOptions(url: first)
        options.failoverURLs = [second]
        let client = try MQTTClient(options: options, logger: testLogger())
        let error = await #expect(throws: MQTTError.self) { try await client.connect(timeout: .seconds(5)) }
        #expect(error?.description.contains(":\(second.port)") == true, "\(String(describing: error))")
        #expect(!client.isConnected)
    }

    @Test func aLostBrokerMovesTheClientToTheNextWhichDeliversToIt() async throws {
        try await withLocalBroker { first in
            try await withLocalBroker { second in
                var options = first.clientOptions(clientID: "failover-\(getpid())", cleanSession: false)
                options.failoverURLs = [MQTTURL(host: "127.0.0.1", port: second.port)]
                // A long backoff: moving on must not wait for it.
                options.reconnectDelay = .seconds(30)
                options.reconnectDelayMax = .seconds(30)
                let received = Mutex<[String]>([])
                let changes = Mutex<[Bool]>([])
                let client = try MQTTClient(options: options, logger: testLogger())
                client.onConnectionChange { connected in changes.withLock { $0.append(connected) } }
                client.onMessage { message in received.withLock { $0.append(message.topic) } }
                client.subscribe(["failover/#"], qos: 1)
                try await client.connect(timeout: .seconds(5))
                #expect(await client.waitForSubscriptions(timeout: .seconds(5)))

                first.kill()
                #expect(await eventually(timeout: .seconds(10)) { changes.withLock { $0 } == [true, false, true] })
                #expect(await client.waitForSubscriptions(timeout: .seconds(10)))
                try await publishOnce(url: second.url, topic: "failover/after", payload: "x")
                #expect(await eventually { received.withLock { $0 } == ["failover/after"] })
                await client.disconnect()
            }
        }
    }

    @Test func thePasswordIsReadAgainAtEveryConnect() async throws {
        let reads = Mutex(0)
        try await withLocalBroker { broker in
            var options = broker.clientOptions()
            options.username = "fleetfence"
            options.passwordSource = {
                reads.withLock { $0 += 1 }
                return "secret"
            }
            let client = try MQTTClient(options: options, logger: testLogger())
            try await client.connect(timeout: .seconds(5))
            try broker.restart()
            #expect(await eventually(timeout: .seconds(10)) { reads.withLock { $0 } >= 2 && client.isConnected })
            await client.disconnect()
        }
    }
}
