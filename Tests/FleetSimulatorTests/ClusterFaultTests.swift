import Dispatch
import FleetFenceService
import FleetFenceTesting
import Foundation
import Testing

extension EndToEndSuites {
    /// Faults of several instances on a NATS cluster (docs/several-instances.md "Several instances"), each in the middle
    /// of a `fleetsim --verify --strict` run at QoS 1 over the bundled routes: a node killed and
    /// started again, an instance killed and started again. Nothing may be missed, nothing alerted
    /// falsely, nothing twice.
    ///
    /// Wall-clock silence confirms a pending change (rule 2): while a fault keeps positions away
    /// longer than `silent_confirm_s`, trucks look parked. Here it is 15 s, above the few seconds a
    /// fail-over takes (docs/several-instances.md "Several instances"); the default is 20 s.
    @Suite("Faults of several instances on a NATS cluster", .serialized, .timeLimit(.minutes(3)))
    struct ClusterFaultTests {
        static let partitions = ClusterEndToEndTests.partitions
        static let seed: UInt64 = 3
        static let silentConfirm = 15.0
        /// Wall seconds into the run (of ~15 s of publishing) when the fault strikes.
        static let faultAfter: Duration = .seconds(6)

        @Test func aNodeKilledMidRunLosesNoAlert() async throws {
            // Every client lists the nodes in the same order, so all of them are on the first: the
            // node killed. They all fail over, and their sessions with them.
            let fleetsim = try ServiceEndToEndTests.locateFleetsim()
            try await withLocalNATSCluster(partitions: Self.partitions) { cluster in
                try await withTemporaryDirectory { directory in
                    var services: [InProcessService] = []
                    for partition in 0..<Self.partitions {
                        services.append(try await InProcessService.start(ClusterInstances.configuration(
                            cluster, partition: partition, directory: directory, silentConfirm: Self.silentConfirm,
                            statsInterval: 2)))
                    }
                    let recorded = try await Self.record(fleetsim, cluster: cluster) {
                        cluster.kill(0)
                        try await Task.sleep(for: .seconds(3))
                        try await Self.offThread { try cluster.start(0) }
                    }
                    var journals: [String: String] = [:]
                    var logs = ""
                    for service in services {
                        let status = await service.stop()
                        #expect(status == 0, "\(service.log.suffix(2000))")
                        #expect(service.log.contains("broker connection lost"), "no fail-over seen: \(service.log.suffix(2000))")
                        journals[service.configuration.instanceName!] = service.configuration.journalPath
                        logs += "--- \(service.configuration.instanceName!)\n\(service.log.suffix(2000))\n"
                    }
                    Self.expectClean(try recorded.outcome(journals: journals, logs: logs + Self.nodeLogs(cluster)))
                }
            }
        }

        @Test func anInstanceKilledMidRunComesBackWithItsDevicesAndItsQueue() async throws {
            let fleetsim = try ServiceEndToEndTests.locateFleetsim()
            try await withLocalNATSCluster(partitions: Self.partitions) { cluster in
                try await withTemporaryDirectory { directory in
                    // p0 as a process, to be killed; p1 in-process.
                    let options = ClusterInstances.processOptions(
                        cluster, partition: 0, directory: directory, silentConfirm: Self.silentConfirm)
                    var p0 = try await ServiceProcess.start(options, workingDirectory: directory)
                    let p1 = try await InProcessService.start(ClusterInstances.configuration(
                        cluster, partition: 1, directory: directory, silentConfirm: Self.silentConfirm))
                    // A device of p0's partition first seen while p0 is down: only its queue can bring it.
                    let probe = (1...).lazy.map { "probe-\($0)" }.first { NATSPartition.of(device: $0, partitions: Self.partitions) == 0 }!
                    var killedLog = ""
                    let recorded: Recorded
                    do {
                        recorded = try await Self.record(fleetsim, cluster: cluster) {
                            _ = await p0.kill()
                            killedLog = p0.log
                            try await publishOnce(
                                url: cluster.brokerList, topic: "fleet/\(probe)/position",
                                payload: #"{"lat":49.0,"lon":8.0,"ts":\#(Date().timeIntervalSince1970)}"#)
                            try await Task.sleep(for: .seconds(2))
                            p0 = try await ServiceProcess.start(options, workingDirectory: directory)
                        }
                    } catch {
                        await p0.terminate()
                        await p1.stop()
                        throw error
                    }
                    let p0Status = await p0.terminate()
                    let p1Status = await p1.stop()
                    #expect(p0Status == 0, "\(p0.log.suffix(2000))")
                    #expect(p1Status == 0, "\(p1.log.suffix(2000))")
                    #expect(killedLog.contains("fleetfence serving"), "p0 was not serving when killed: \(killedLog.suffix(2000))")
                    // The journal restores what p0 held before the kill.
                    let restoreLine = p0.log.split(separator: "\n").first { $0.contains("state restored from journal") } ?? ""
                    let restored = restoreLine.firstMatch(of: /devices=(\d+)/).flatMap { Int($0.1) } ?? 0
                    #expect(restored > 0, "\(p0.log.suffix(2000))")
                    let outcome = try recorded.outcome(
                        journals: ["p0": options[.journalPath] ?? "", "p1": p1.configuration.journalPath],
                        logs: "--- p0 before the kill\n\(killedLog.suffix(2000))\n--- p0 after\n\(p0.log.suffix(2000))\n--- p1\n\(p1.log.suffix(2000))")
                    #expect(outcome.ledger.instances["p0"]?.devices.contains(probe) == true, "queued position lost: \(outcome.context)")
                    Self.expectClean(outcome)
                }
            }
        }

        // MARK: Running

        /// What a run recorded: fleetsim's verdict, and every alert a subscriber of its own saw.
        struct Recorded {
            var run: ProcessResult
            var alerts: [ReceivedMessage]

            /// With each instance's own account, from its journal (once it stopped).
            func outcome(journals: [String: String], logs: String) throws -> Outcome {
                let ledger = AlertLedger(alerts, instances: try journals.mapValues { try AlertLedger.Instance(journal: $0) })
                let context = "fleetsim exit \(run.status)\n--- stdout (tail)\n\(run.output.suffix(3000))\n--- stderr (tail)\n"
                    + "\(run.errorOutput.suffix(3000))\n--- alerts\n\(ledger)\n--- services\n\(logs)"
                return Outcome(run: run, summary: ServiceEndToEndTests.Summary(run.output), ledger: ledger, context: context)
            }
        }

        struct Outcome {
            var run: ProcessResult
            var summary: ServiceEndToEndTests.Summary
            var ledger: AlertLedger
            var context: String
        }

        /// Starts fleetsim at QoS 1 against every node while a subscriber records every alert in a
        /// persistent session (so that it fails over without losing any), strikes `fault` after
        /// `faultAfter`, and waits for fleetsim's verdict.
        static func record(_ fleetsim: String, cluster: LocalNATSCluster, fault: () async throws -> Void) async throws -> Recorded {
            let alerts = try await MessageCollector.start(
                url: cluster.brokerList, filters: ["fleetfence/alerts/#"], clientID: "fault-alerts-\(getpid())",
                cleanSession: false)
            do {
                let program = try LaunchedProgram(
                    fleetsim,
                    ClusterInstances.fleetsimArguments(broker: cluster.brokerList, seed: seed, silentConfirm: silentConfirm),
                    directory: Fixtures.packageRoot.path, environment: ChildEnvironment.withoutFleetFenceVariables())
                try await Task.sleep(for: faultAfter)
                try await fault()
                guard await program.waitForExit(within: .seconds(150)) else { throw program.killed(after: .seconds(150)) }
                await alerts.stop()
                return Recorded(run: program.result(), alerts: alerts.collected)
            } catch {
                await alerts.stop()
                throw error
            }
        }

        /// fleetsim's verdict clean (0 missed, 0 false), every device's alerts from its own instance,
        /// no alert sent twice, and per device and fence no enter or exit twice in a row (an exact
        /// redelivery of the same seq, which NATS's gateway may make after a node dies, counted once).
        static func expectClean(_ outcome: Outcome) {
            let context = outcome.context
            #expect(outcome.run.status == 0, "\(context)")
            let expected = outcome.summary.counts["expected"] ?? 0
            #expect(expected >= 2 * ServiceEndToEndTests.trucks, "\(context)")
            #expect(outcome.summary.counts["matched"] == expected, "\(context)")
            #expect(outcome.summary.counts["missed"] == 0, "\(context)")
            #expect(outcome.summary.counts["false"] == 0, "\(context)")
            var last: [String: (event: String, seq: String)] = [:]
            for alert in outcome.ledger.distinct.sorted(by: { ($0.device, $0.seq ?? 0) < ($1.device, $1.seq ?? 0) })
            where alert.event != .dwell {
                let key = "\(alert.device) \(alert.fence)"
                let seq = alert.seq.map { "\($0)" } ?? "none"
                if let previous = last[key] {
                    #expect(
                        previous.event != alert.event.rawValue,
                        "\(key): \(alert.event.rawValue) twice in a row, seq \(previous.seq) and \(seq): \(context)")
                }
                last[key] = (alert.event.rawValue, seq)
            }
            ClusterEndToEndTests.expectEachDeviceFromItsOwnInstance(outcome.ledger, context: context)
        }

        static func nodeLogs(_ cluster: LocalNATSCluster) -> String {
            cluster.nodes.indices.map { "--- node n\($0 + 1)\n" + cluster.log($0).suffix(6000) }.joined(separator: "\n")
        }

        /// Runs a blocking step (a node's start waits for it in a loop) on a thread of its own, not
        /// on one of Swift concurrency's few, which the in-process services need meanwhile.
        static func offThread(_ body: @escaping @Sendable () throws -> Void) async throws {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                DispatchQueue.global().async {
                    continuation.resume(with: Result { try body() })
                }
            }
        }
    }
}
