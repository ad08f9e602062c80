import FleetFenceService
import FleetFenceTesting
import Foundation
import Testing
@testable import FleetSimulator

extension EndToEndSuites {
    /// What a misconfigured partition looks like (docs/several-instances.md "Several instances"): two instances on one
    /// partition both alert its devices, each alert naming its instance; an instance on a filter the
    /// cluster never delivers to holds nothing while its partition's devices go unheard. Both still
    /// say `online` on their status topics.
    @Suite("A misconfigured partition on a NATS cluster", .timeLimit(.minutes(2)))
    struct ClusterMisconfigurationTests {
        static let partitions = 2

        @Test func twoInstancesOnOnePartitionAndOneOnAWrongFilterShowInAlertsAndStatus() async throws {
            try await withLocalNATSCluster(partitions: Self.partitions) { cluster in
                try await withTemporaryDirectory { directory in
                    let fences = directory + "/fences.geojson"
                    try #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[8.0,49.0]},"properties":{"id":"depot","radius":200}}]}"#
                        .write(toFile: fences, atomically: true, encoding: .utf8)
                    func configuration(_ name: String, _ positions: String) -> ServiceConfiguration {
                        var configuration = ClusterInstances.configuration(
                            cluster, partition: 0, directory: directory, silentConfirm: 20, name: name, positions: [positions])
                        configuration.fencesFile = fences
                        return configuration
                    }
                    let status = try await MessageCollector.start(url: cluster.brokerList, filters: ["fleetfence/status/+"], qos: 0)
                    let alerts = try await MessageCollector.start(url: cluster.brokerList, filters: ["fleetfence/alerts/#"])
                    var services: [InProcessService] = []
                    do {
                        // p0 right; p0b a second instance on partition 0; p1 on the filter of a single
                        // instance, which no partitioned position ever matches.
                        for (name, filter) in [("p0", "fleet/0/+/position"), ("p0b", "fleet/0/+/position"), ("p1", "fleet/+/position")] {
                            services.append(try await InProcessService.start(configuration(name, filter)))
                        }
                        let inZero = Self.device(inPartition: 0), inOne = Self.device(inPartition: 1)
                        try await Self.enterTheDepot([inZero, inOne], cluster: cluster)

                        let entered = await alerts.messages(matching: "fleetfence/alerts/+/depot/enter", count: 2, timeout: .seconds(15))
                        // Time for an alert of the uncovered partition, which must not come.
                        try await Task.sleep(for: .seconds(2))
                        let ledger = AlertLedger(alerts.collected)
                        let context = "\(ledger)\n" + services.map { "\($0.configuration.instanceName!): \($0.log.suffix(1500))" }.joined(separator: "\n")
                        #expect(entered.count == 2, "\(context)")
                        #expect(Set(ledger.alerts.map(\.device)) == [inZero], "\(context)")
                        // Each instance's own account: both p0 and p0b hold and alerted the device, p1 nothing.
                        let held = services.map { service in
                            (service.configuration.instanceName!, Set(service.service.readModel.devices(after: nil, limit: 100).map(\.device)))
                        }
                        #expect(held.first { $0.0 == "p0" }?.1 == [inZero], "\(context)")
                        #expect(held.first { $0.0 == "p0b" }?.1 == [inZero], "\(context)")
                        #expect(held.first { $0.0 == "p1" }?.1 == [], "\(context)")
                        // Each names its instance: the symptom an operator sees on the alerts topic.
                        #expect(ledger.namedInstancesByDevice[inZero] == ["p0", "p0b"], "\(context)")
                        // Every instance says online, three for two partitions.
                        let online = await status.messages(matching: "fleetfence/status/+", count: 3)
                        #expect(Set(online.filter { $0.text == "online" }.map(\.topic))
                            == ["fleetfence/status/p0", "fleetfence/status/p0b", "fleetfence/status/p1"], "\(online)")
                    } catch {
                        for service in services { await service.stop() }
                        throw error
                    }
                    for service in services { await service.stop() }
                    await alerts.stop()
                    await status.stop()
                }
            }
        }

        static func device(inPartition partition: Int) -> String {
            (1...).lazy.map { "truck-\($0)" }.first { NATSPartition.of(device: $0, partitions: partitions) == partition }!
        }

        /// Each device first seen 300 m north of the depot, then inside it for 25 s of event time:
        /// one debounced enter.
        static func enterTheDepot(_ devices: [String], cluster: LocalNATSCluster) async throws {
            var options = MQTTOptions(url: MQTTURL(host: "127.0.0.1"), clientID: "misconfigured-trucks-\(getpid())")
            options.setBrokers(try MQTTURL.list(parsing: cluster.brokerList))
            let client = try MQTTClient(options: options, logger: testLogger())
            try await client.connect(timeout: .seconds(5))
            let start = (Date().timeIntervalSince1970 - 60).rounded()
            for (step, lat) in [49.0027, 49.0, 49.0, 49.0, 49.0, 49.0, 49.0].enumerated() {
                for device in devices {
                    let payload = #"{"lat":\#(lat),"lon":8.0,"ts":\#(start + Double(step) * 5),"acc":5}"#
                    _ = client.publish(topic: "fleet/\(device)/position", payload: Array(payload.utf8), qos: 1)
                }
            }
            #expect(await client.waitForPublishes(timeout: .seconds(10)))
            await client.disconnect()
        }
    }
}
