import FleetFenceTesting
import Foundation
import LocalBroker
import Synchronization
import Testing

/// The NATS cluster that several instances run on (docs/several-instances.md "Several instances"), as the shipped
/// template configures it: what FleetFence relies on, checked against the real nats-server.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LocalNATSClusterTests {
    @Test func aPositionReachesItsDevicesPartitionWhicheverNodeItEnters() async throws {
        try await withLocalNATSCluster(partitions: 4) { cluster in
            let collector = try await MessageCollector.start(url: cluster.mqttURLs[2], filters: ["fleet/+/+/position"])
            let devices = (1...8).map { "truck-\($0)" }
            for device in devices {
                try await publishOnce(url: cluster.mqttURLs[0], topic: "fleet/\(device)/position", payload: device)
            }
            let received = await collector.messages(matching: "fleet/+/+/position", count: devices.count)
            #expect(Set(received.map(\.topic)) == Set(devices.map {
                "fleet/\(NATSPartition.of(device: $0, partitions: 4))/\($0)/position"
            }))
            #expect(Set(received.map { $0.topic.split(separator: "/")[1] }).count > 1, "all in one partition: \(received)")
            await collector.stop()
        }
    }

    /// NATS' `partition()`, as measured against nats-server 2.9.10: FNV-1a-32 of the id, modulo P.
    @Test func thePartitionFunctionIsNATSOwn() {
        #expect(NATSPartition.of(device: "truck-7", partitions: 4) == 0)
        #expect(NATSPartition.of(device: "truck-8", partitions: 4) == 1)
        #expect(NATSPartition.of(device: "van-1", partitions: 4) == 0)
        #expect(NATSPartition.of(device: "truck-1", partitions: 2) == 0)
        #expect(NATSPartition.of(device: "truck-2", partitions: 2) == 1)
        #expect(NATSPartition.of(device: "anything", partitions: 1) == 0)
    }

    /// What an instance relies on when its node dies: its session (subscriptions, queued QoS 1
    /// positions) and retained messages live on the two nodes that are left. The subscription's
    /// delivery state has one copy (the template's `consumer_replicas`): when that copy was on the
    /// dead node, the queued position arrives once the node is back, never lost.
    @Test func aSessionAndRetainedMessagesOutliveTheirNode() async throws {
        try await withLocalNATSCluster(partitions: 2) { cluster in
            let instance = try await MessageCollector.start(
                url: cluster.brokerList, filters: ["fleet/+/+/position"], clientID: "instance-\(getpid())",
                cleanSession: false)
            try await publishOnce(url: cluster.mqttURLs[0], topic: "fleetfence/status/p0", payload: "online", retain: true)

            cluster.kill(0)
            let others = cluster.mqttURLs.dropFirst().joined(separator: ",")
            // The first publishes after a kill wait for JetStream to elect new leaders.
            let published = await retrying(for: .seconds(30)) {
                try await publishOnce(url: others, topic: "fleet/truck-1/position", payload: "while n1 is down", timeout: .seconds(5))
            }
            #expect(published)

            // QoS 0: a new QoS 1 subscription needs a new JetStream consumer,
            // which cannot be placed while a node is down (docs/several-instances.md "Several instances").
            let reader = try await MessageCollector.start(url: cluster.mqttURLs[2], filters: ["fleetfence/status/+"], qos: 0)
            let status = await reader.messages(matching: "fleetfence/status/+", count: 1)
            #expect(status.first?.text == "online" && status.first?.retain == true, "\(status)")
            await reader.stop()

            var received = await instance.messages(matching: "fleet/+/truck-1/position", count: 1, timeout: .seconds(10))
            try cluster.start(0)
            #expect(cluster.isRunning(0))
            if received.isEmpty {
                received = await instance.messages(matching: "fleet/+/truck-1/position", count: 1, timeout: .seconds(45))
            }
            #expect(received.map(\.text).contains("while n1 is down"), "\(instance.collected)")
            await instance.stop()
        }
    }

    /// Every QoS 1 message reaches every persistent subscriber. With replicated consumers
    /// nats-server 2.9.10 lost some (see the template's `consumer_replicas`).
    @Test func everyQoS1MessageReachesEverySubscriber() async throws {
        try await withLocalNATSCluster(partitions: 2) { cluster in
            var subscribers: [MessageCollector] = []
            for name in ["a", "b", "c"] {
                subscribers.append(try await MessageCollector.start(
                    url: cluster.brokerList, filters: ["fleetfence/alerts/#"], clientID: "qos1-\(name)-\(getpid())",
                    cleanSession: false))
            }
            var options = MQTTOptions(url: MQTTURL(host: "127.0.0.1"), clientID: "qos1-publisher-\(getpid())")
            options.setBrokers(try MQTTURL.list(parsing: cluster.brokerList))
            let publisher = try MQTTClient(options: options, logger: testLogger())
            try await publisher.connect(timeout: .seconds(5))
            let count = 400
            for n in 0..<count {
                _ = publisher.publish(topic: "fleetfence/alerts/truck-\(n % 7)/depot/enter", payload: Array(String(n).utf8), qos: 1)
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(await publisher.waitForPublishes(timeout: .seconds(30)))
            await publisher.disconnect()
            for subscriber in subscribers {
                let received = await subscriber.messages(matching: "fleetfence/alerts/#", count: count, timeout: .seconds(20))
                let missing = Set(0..<count).subtracting(received.compactMap { Int($0.text) })
                #expect(missing.isEmpty, "\(subscriber.client!.options.clientID ?? ""): missing \(missing.sorted())")
                await subscriber.stop()
            }
        }
    }

    @Test func theClusterLeavesNothingBehind() async throws {
        let (directory, pids) = try await withLocalNATSCluster(partitions: 1) { cluster in
            (cluster.workDirectory, cluster.nodes.indices.map { cluster.processID($0) })
        }
        #expect(pids.allSatisfy { $0 > 0 })
        for pid in pids { #expect(kill(pid, 0) != 0, "node \(pid) still runs") }
        // The directory goes with the last reference, which `withLocalNATSCluster` dropped.
        #expect(!FileManager.default.fileExists(atPath: directory))
    }

    private func retrying(for limit: Duration, _ attempt: () async throws -> Void) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if (try? await attempt()) != nil { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return false
    }
}
