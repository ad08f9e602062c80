import FleetFenceService
import FleetFenceTesting
import Foundation
import Testing

extension EndToEndSuites {
    /// Several instances on a distributed broker (docs/several-instances.md "Several instances"), end to end: a
    /// three-node NATS cluster, two instances of the service each following its partition, and the
    /// real `fleetsim --verify --strict` over the bundled routes. They must score exactly as one
    /// instance on mosquitto does with the same seed, and each device's alerts must come from the one
    /// instance its partition names, none twice.
    @Suite("Several instances on a NATS cluster", .serialized, .timeLimit(.minutes(3)))
    struct ClusterEndToEndTests {
        static let partitions = 2
        static let seed: UInt64 = 1
        static let silentConfirm = ServiceEndToEndTests.silentConfirm

        /// What one fleetsim run said, and every alert a subscriber of the broker saw.
        struct Outcome {
            var run: ProcessResult
            var summary: ServiceEndToEndTests.Summary
            var ledger: AlertLedger
            var serviceLogs: String

            var context: String {
                "fleetsim exit \(run.status)\n--- stdout (tail)\n\(run.output.suffix(3000))\n--- stderr\n\(run.errorOutput.suffix(2000))"
                    + "\n--- alerts\n\(ledger)\n--- service logs (tail)\n\(serviceLogs.suffix(3000))"
            }
        }

        @Test func twoInstancesOnTheClusterVerifyAsOneInstanceOnMosquitto() async throws {
            let fleetsim = try ServiceEndToEndTests.locateFleetsim()
            // Side by side: the two runs share nothing but the machine, and each takes ~25 s.
            async let single = Self.oneInstanceOnMosquitto(fleetsim)
            async let clustered = Self.instancesOnTheCluster(fleetsim)
            let (reference, outcome) = try await (single, clustered)
            let context = "cluster:\n\(outcome.context)\n\nmosquitto:\n\(reference.context)"

            #expect(reference.run.status == 0, "\(context)")
            #expect(outcome.run.status == 0, "\(context)")
            for count in ["expected", "matched", "missed", "false", "ambiguous"] {
                #expect(outcome.summary.counts[count] != nil, "\(count) missing: \(context)")
                #expect(outcome.summary.counts[count] == reference.summary.counts[count], "\(count): \(context)")
            }
            #expect(outcome.summary.counts["missed"] == 0 && outcome.summary.counts["false"] == 0, "\(context)")
            #expect((outcome.summary.counts["expected"] ?? 0) >= 2 * ServiceEndToEndTests.trucks, "\(context)")

            // Both partitions hold trucks that alerted: the cluster really spread them.
            let devices = Set(outcome.ledger.alerts.map(\.device))
            #expect(Set(devices.map { ClusterInstances.owner(of: $0, partitions: Self.partitions) }) == ["p0", "p1"], "\(context)")
            Self.expectEachDeviceFromItsOwnInstance(outcome.ledger, context: context)
            #expect(outcome.ledger.redelivered == 0, "\(context)")
        }

        /// Each device belongs to the instance its partition names: only that instance holds it and
        /// committed its alerts, every alert received was committed by one instance, none came twice,
        /// and every alert names its instance.
        static func expectEachDeviceFromItsOwnInstance(_ ledger: AlertLedger, context: String) {
            #expect(!ledger.alerts.isEmpty, "\(context)")
            #expect(ledger.unreadable == 0, "\(context)")
            for (name, instance) in ledger.instances.sorted(by: { $0.key < $1.key }) {
                let strangers = instance.devices.filter { ClusterInstances.owner(of: $0, partitions: partitions) != name }
                #expect(strangers.isEmpty, "\(name) holds devices of other partitions: \(strangers.sorted()) \(context)")
            }
            for (device, instances) in ledger.committingInstancesByDevice.sorted(by: { $0.key < $1.key }) {
                #expect(instances == [ClusterInstances.owner(of: device, partitions: partitions)], "\(device): \(context)")
            }
            #expect(ledger.uncommitted.isEmpty, "\(context)")
            #expect(ledger.repeated.isEmpty, "\(context)")
            // The alert itself names its instance (docs/several-instances.md "Several instances"): one failure, not one per device.
            #expect(ledger.withoutInstance == 0, "alerts without an instance field: \(context)")
            if ledger.withoutInstance == 0 {
                for (device, named) in ledger.namedInstancesByDevice.sorted(by: { $0.key < $1.key }) {
                    #expect(named == [ClusterInstances.owner(of: device, partitions: partitions)], "\(device): \(context)")
                }
            }
        }

        // MARK: The two runs

        static func oneInstanceOnMosquitto(_ fleetsim: String) async throws -> Outcome {
            try await withLocalBroker { broker in
                try await withTemporaryDirectory { directory in
                    let service = try await InProcessService.start(ServiceConfiguration(
                        brokerURLs: [broker.url], clientID: "fleetfence-reference-\(getpid())",
                        fencesFile: Fixtures.packageRoot.path + "/Config/fences.geojson",
                        journalPath: directory + "/fleetfence.db",
                        geofence: .init(debounceSeconds: ClusterInstances.debounce, silentConfirmSeconds: silentConfirm),
                        statsIntervalSeconds: 60, http: .init(listen: nil)))
                    return try await verified(
                        fleetsim, broker: broker.url, alertsAt: broker.url, services: [service], context: { "" })
                }
            }
        }

        static func instancesOnTheCluster(_ fleetsim: String) async throws -> Outcome {
            try await withLocalNATSCluster(partitions: partitions) { cluster in
                try await withTemporaryDirectory { directory in
                    var services: [InProcessService] = []
                    do {
                        for partition in 0..<partitions {
                            services.append(try await InProcessService.start(ClusterInstances.configuration(
                                cluster, partition: partition, directory: directory, silentConfirm: silentConfirm)))
                        }
                    } catch {
                        for service in services { await service.stop() }
                        throw error
                    }
                    return try await verified(
                        fleetsim, broker: cluster.brokerList, alertsAt: cluster.brokerList, services: services,
                        context: { cluster.nodes.indices.map { "n\($0 + 1): " + cluster.log($0).suffix(1500) }.joined(separator: "\n") })
                }
            }
        }

        /// Runs fleetsim to its end while a subscriber of `alertsAt` records every alert, then stops
        /// the services (each must stop cleanly).
        static func verified(
            _ fleetsim: String, broker: String, alertsAt: String, services: [InProcessService],
            context: () -> String
        ) async throws -> Outcome {
            let alerts: MessageCollector
            do {
                alerts = try await MessageCollector.start(url: alertsAt, filters: ["fleetfence/alerts/#"])
            } catch {
                for service in services { await service.stop() }
                throw error
            }
            let run: ProcessResult
            do {
                run = try await ServiceEndToEndTests.runFleetsim(
                    fleetsim, in: Fixtures.packageRoot.path,
                    arguments: ClusterInstances.fleetsimArguments(broker: broker, seed: seed, silentConfirm: silentConfirm),
                    timeout: .seconds(120))
            } catch {
                await alerts.stop()
                for service in services { await service.stop() }
                throw error
            }
            await alerts.stop()
            var instances: [String: AlertLedger.Instance] = [:]
            var logs = ""
            for service in services {
                let status = await service.stop()
                #expect(status == 0, "\(service.log.suffix(2000))")
                let name = service.configuration.instanceName ?? "service"
                logs += "--- \(name)\n" + service.log.suffix(1500) + "\n"
                instances[name] = try AlertLedger.Instance(journal: service.configuration.journalPath)
            }
            return Outcome(
                run: run, summary: ServiceEndToEndTests.Summary(run.output), ledger: AlertLedger(alerts.collected, instances: instances),
                serviceLogs: logs + context())
        }
    }
}
