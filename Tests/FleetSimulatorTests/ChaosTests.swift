import FleetFenceTesting
import Foundation
import GeofenceEngine
import Testing

@testable import FleetSimulator

extension EndToEndSuites {
    /// kill -9 in the middle of a verified run, with real processes: a mosquitto with the shipped
    /// config's persistence, autosave and queue settings (read from Config/mosquitto.conf), `fleetfence
    /// serve`, and the simulator (in-process) replaying the bundled routes and tours with 10 m of noise,
    /// positions at QoS 1. Either the broker or the service is killed and started again on what it kept;
    /// the run must still score clean: nothing missed, nothing false, and no crossing alerted under two
    /// seqs (a QoS 1 redelivery of one alert, same device and seq, counts once; docs/simulator.md "Simulator").
    @Suite("Chaos: kill -9 of the broker or the service during a verified run", .serialized, .timeLimit(.minutes(3)))
    struct ChaosTests {
        static let trucks = 25
        /// The bundled routes take about 40 s at this speed: long enough to kill something after the
        /// broker's first save (10 s) with crossings before and after.
        static let speedup = 30.0
        static let debounce = 20.0
        /// Wall seconds, on both sides. Its own outage the service does not count as silence, but a
        /// service back before the trucks' publisher reads the gap as silent trucks: longer than the
        /// clients' reconnect backoff.
        static let silentConfirm = 5.0

        @Test func brokerKilledAndRestartedOnItsPersistence() async throws {
            try await withChaosRun(name: "broker") { run in
                _ = try await run.waitForFirstPosition()
                // Mid-run: after an alert, and after the broker saved the sessions. Killed before it
                // saved, it forgets the service's and the verifier's sessions, and with them every
                // message queued for them (Config/mosquitto.conf, autosave_interval).
                try await run.waitForFirstAlert()
                try await run.waitForBrokerSave(after: Date().timeIntervalSince1970)
                let servicePID = run.service.processID
                run.broker.kill()
                let killed = Date().timeIntervalSince1970
                try await Task.sleep(for: .seconds(1))
                try run.broker.restart()
                let restarted = Date().timeIntervalSince1970

                let report = try await run.report()
                let context = run.context(report)
                run.expectClean(report, context)
                run.expectAlerts(report, before: killed, after: restarted, context)
                #expect(run.service.processID == servicePID && run.service.isRunning, "the service rode it out: \(context)")
                // Both came back to the sessions the broker saved: what it queued for them was kept.
                #expect(run.restoredSessions.contains(run.serviceOptions[.clientID] ?? ""), "\(context)")
                #expect(run.restoredSessions.contains(run.alertsClientID), "\(context)")
                #expect(await run.service.terminate() == 0, "\(context)")
            }
        }

        @Test func serviceKilledAndRestartedOnItsJournal() async throws {
            try await withChaosRun(name: "service") { run in
                _ = try await run.waitForFirstPosition()
                try await run.waitForFirstAlert()
                try await Task.sleep(for: .seconds(5))
                let first = run.service
                #expect(await first.kill() == 128 + SIGKILL)
                let killed = Date().timeIntervalSince1970
                // Meanwhile the broker queues the positions for the service's session (QoS 1).
                try await Task.sleep(for: .seconds(3))
                let second = try await run.restartService()
                let restarted = Date().timeIntervalSince1970

                let report = try await run.report()
                let context = run.context(report) + "\n--- first service's log (tail)\n\(first.logTail(40))"
                run.expectClean(report, context)
                run.expectAlerts(report, before: killed, after: restarted, context)
                #expect(second.log.contains("session=resumed"), "the broker kept the session and its positions: \(context)")
                #expect(await second.terminate() == 0, "\(context)")
            }
        }

        // MARK: The run

        /// The processes of one chaos run and the simulation running against them.
        final class ChaosRun {
            let broker: LocalMosquitto
            let brokerSettings: ShippedBrokerSettings
            let persistence: String
            let serviceOptions: ServiceProcess.Options
            let directory: String
            /// The current service process (a restart replaces it). Touched by the test's task only.
            var service: ServiceProcess
            let simulation: Simulation
            /// The simulation's log from notice up: its clients' reconnects.
            let simulationLog = LogCapture()
            private var running: Task<VerifyReport?, any Error>?

            init(directory: String, name: String) async throws {
                let root = Fixtures.packageRoot.path
                self.directory = directory
                brokerSettings = try ShippedBrokerSettings(contentsOf: root + "/Config/mosquitto.conf")
                persistence = directory + "/broker"
                try FileManager.default.createDirectory(atPath: persistence, withIntermediateDirectories: true)
                broker = try LocalMosquitto.start(extraConfig: brokerSettings.extraConfig, persistenceDirectory: persistence)
                var serviceOptions = ServiceProcess.Options([
                    .brokerURL: broker.url, .fencesFile: root + "/Config/fences.geojson", .journalPath: directory + "/fleetfence.db",
                    .clientID: "fleetfence-chaos-\(name)", .statsInterval: "5",
                ])
                serviceOptions.set(.debounce, ChaosTests.debounce)
                serviceOptions.set(.silentConfirm, ChaosTests.silentConfirm)
                self.serviceOptions = serviceOptions
                do {
                    service = try await ServiceProcess.start(serviceOptions, workingDirectory: directory)
                } catch {
                    broker.stop()
                    throw error
                }

                var options = SimulationOptions(routes: Fixtures.bundledRoutes)
                options.broker = broker.url
                options.speedup = ChaosTests.speedup
                options.qos = 1
                options.fleet.trucks = ChaosTests.trucks
                options.fleet.noise = 10
                options.fleet.seed = 1
                options.tours = Fixtures.bundledTours
                options.clientIDPrefix = "fleetsim-chaos-\(name)-"
                options.verify = try VerifyOptions(
                    fencesFile: Fixtures.fencesFile.path, debounceSeconds: ChaosTests.debounce,
                    silentConfirmSeconds: ChaosTests.silentConfirm)
                simulation = try Simulation(options: options, logger: simulationLog.logger(label: "fleetsim", level: .notice))
            }

            var alertsClientID: String { simulation.options.clientIDPrefix + "alerts" }

            /// Client ids that reconnected to a session the broker still had, from the service's and
            /// the simulation's logs.
            var restoredSessions: Set<String> {
                let lines = (service.log + "\n" + simulationLog.text).split(separator: "\n")
                return Set(lines.filter { $0.contains("MQTT connection restored") && $0.contains("session=resumed") }.compactMap { line in
                    line.firstMatch(of: /mqtt\.client=(\S+)/).map { String($0.1) }
                })
            }

            func start() {
                let simulation = simulation
                running = Task { try await simulation.run() }
            }

            /// Waits for the simulation's first position: by then the service and the simulation's alert
            /// subscriber have subscribed. Returns when it came (wall clock).
            func waitForFirstPosition() async throws -> Double {
                let watcher = try await MessageCollector.start(url: broker.url, filters: ["fleet/+/position"])
                let first = await watcher.next(topicPrefix: "fleet/", timeout: .seconds(30))
                await watcher.stop()
                try #require(first != nil, "no position within 30 s")
                return Date().timeIntervalSince1970
            }

            /// Waits for the service's first alert: a kill after it is in the middle of the run.
            func waitForFirstAlert() async throws {
                let watcher = try await MessageCollector.start(url: broker.url, filters: ["fleetfence/alerts/#"])
                let first = await watcher.next(topicPrefix: "fleetfence/alerts/", timeout: .seconds(30))
                await watcher.stop()
                try #require(first != nil, "no alert within 30 s")
            }

            /// Waits until the broker has saved its persistence file after `time`.
            func waitForBrokerSave(after time: Double) async throws {
                let file = persistence + "/" + brokerSettings.persistenceFile
                let deadline = ContinuousClock.now + .seconds(brokerSettings.autosaveSeconds * 2 + 10)
                while ContinuousClock.now < deadline {
                    let saved = (try? FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date)?
                        .timeIntervalSince1970
                    if let saved, saved > time { return }
                    try await Task.sleep(for: .milliseconds(100))
                }
                throw TestSupportError("the broker did not save \(file) within \(brokerSettings.autosaveSeconds * 2 + 10) s")
            }

            /// The service again, on its journal and client id.
            func restartService() async throws -> ServiceProcess {
                service = try await ServiceProcess.start(serviceOptions, workingDirectory: directory)
                return service
            }

            /// Waits for the simulation to end and score.
            func report() async throws -> VerifyReport {
                guard let running else { throw TestSupportError("the simulation was not started") }
                return try #require(try await running.value)
            }

            func stop() async {
                simulation.stop()
                simulation.stop()
                _ = try? await running?.value
                await service.terminate()
                broker.stop()
            }

            func context(_ report: VerifyReport) -> String {
                "\(report)\n--- simulation log\n\(simulationLog.text.suffix(3000))\n--- service log (tail)\n\(service.logTail(40))\n--- broker log (tail)\n\(broker.log.suffix(3000))"
            }

            func expectClean(_ report: VerifyReport, _ context: String) {
                #expect(report.missed.isEmpty, "\(context)")
                #expect(report.falseAlerts.isEmpty, "\(context)")
                #expect(report.matched == report.expected, "\(context)")
                // Meaningful: every truck crosses fences, and the run published what the routes hold.
                #expect(report.expected >= 2 * ChaosTests.trucks, "\(context)")
                #expect(report.positions > 5000, "\(context)")
            }

            /// Matched alerts arrived both before the kill and after the restart: the kill was mid-run.
            func expectAlerts(_ report: VerifyReport, before killed: Double, after restarted: Double, _ context: String) {
                let arrivals = report.matchedAlerts.map(\.alert.received)
                #expect(arrivals.contains { $0 < killed }, "no alert before the kill: \(context)")
                #expect(arrivals.contains { $0 > restarted }, "no alert after the restart: \(context)")
            }
        }

        /// A chaos run in a temporary directory; everything it started is stopped afterwards.
        func withChaosRun(name: String, _ body: (ChaosRun) async throws -> Void) async throws {
            try await withTemporaryDirectory { directory in
                let run = try await ChaosRun(directory: directory, name: name)
                run.start()
                do {
                    try await body(run)
                } catch {
                    await run.stop()
                    throw error
                }
                await run.stop()
            }
        }
    }
}
