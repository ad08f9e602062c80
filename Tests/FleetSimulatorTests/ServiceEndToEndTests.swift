import FleetFenceTesting
import FleetSimulator
import Foundation
import GeofenceEngine
import Testing

extension EndToEndSuites {
    /// The end-to-end check, with nothing stood in: a private mosquitto, the real `fleetfence serve`,
    /// and the real `fleetsim` setting the bundled tours and replaying the bundled routes with 10 m of
    /// GPS noise, scoring the service's alerts and tour events with `--verify --strict`: every kind
    /// (enter, exit, dwell, speeding, stop_visited, stop_skipped, tour_completed) is expected at least
    /// once, and none is missed or false.
    ///
    /// Both sides run with the default debounce (20 s) and hysteresis (10 m); only the wall-clock
    /// silence that confirms a quiet truck's last change is shortened (on both sides), and the
    /// simulated clock runs fast, so that a run takes about 20 s.
    @Suite("End to end: mosquitto, fleetfence serve and fleetsim --verify --strict", .serialized)
    struct ServiceEndToEndTests {
        static let trucks = 25
        static let speedup = 60.0
        static let debounce = 20.0
        /// Wall seconds. Short to keep the run quick, long enough that a busy machine's scheduling
        /// hiccup never looks like a truck falling silent in the middle of its route.
        static let silentConfirm = 3.0

        /// fleetsim's flags for a verified run over the bundled routes against `broker` (one URL or a
        /// cluster's list); the cluster tests run the same at QoS 1.
        static func fleetsimArguments(
            broker: String, seed: UInt64, qos: Int = 0, silentConfirm: Double = silentConfirm
        ) -> [String] {
            [
                "--broker", broker,
                "--routes", "Simulator/Routes",
                "--trucks", String(trucks),
                "--speedup", String(speedup),
                "--noise", "10",
                "--seed", String(seed),
                "--qos", String(qos),
                "--verify", "--strict",
                "--fences", "Config/fences.geojson",
                "--debounce", String(debounce),
                "--silent-confirm", String(silentConfirm),
            ]
        }

        /// The summary `fleetsim --verify` prints (see VerifyReport.description).
        struct Summary {
            var counts: [String: Int] = [:]
            /// "enter" -> (matched, expected), from "matched by event: enter 36/36, ...".
            var byEvent: [String: (matched: Int, expected: Int)] = [:]
            var positions: Int?
            var result: String?

            init(_ output: String) {
                for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
                    if let m = line.wholeMatch(of: /\s+(expected|matched|missed|false|ambiguous)\s+(\d+).*/) {
                        counts[String(m.1)] = Int(m.2)
                    }
                    if let m = line.firstMatch(of: /^verify: \d+ trucks, (\d+) positions/) {
                        positions = Int(m.1)
                    }
                    if line.hasPrefix("result: ") { result = String(line.dropFirst("result: ".count)) }
                    if let range = line.range(of: "matched by event: ") {
                        for item in line[range.upperBound...].split(separator: ", ") {
                            if let m = item.wholeMatch(of: /(\w+) (\d+)\/(\d+)/), let matched = Int(m.2), let expected = Int(m.3) {
                                byEvent[String(m.1)] = (matched, expected)
                            }
                        }
                    }
                }
            }
        }

        /// Seeds 1 and 3 used to fail: a truck standing 90 s on the 20 m gatehouse gets a (rightly
        /// ambiguous) enter whose `at` the noise pushed more than a minute past the true crossing.
        @Test(arguments: [UInt64(1), 3])
        func strictVerifyPassesAtTenMetresOfNoise(seed: UInt64) async throws {
            let run = try await Self.verifiedRun(
                clientID: "fleetfence-e2e-\(seed)", fleetsim: Self.fleetsimArguments(broker: "{broker}", seed: seed) + ["--tours", "Config/tours.json"])
            let (serviceStatus, context) = (run.serviceStatus, run.context)
            #expect(serviceStatus == 0, "\(context)")
            #expect(run.status == 0, "\(context)")
            let summary = Summary(run.output)
            let expected = try #require(summary.counts["expected"], "no summary: \(context)")
            #expect(summary.counts["matched"] == expected, "\(context)")
            #expect(summary.counts["missed"] == 0, "\(context)")
            #expect(summary.counts["false"] == 0, "\(context)")
            #expect(summary.result == "clean", "\(context)")
            // Meaningful: every truck crosses fences, and every kind of alert is scored.
            #expect(expected >= 2 * Self.trucks, "\(context)")
            #expect(summary.counts["ambiguous"] != nil, "\(context)")
            for event in AlertEvent.allCases.map(\.rawValue) {
                let counts = summary.byEvent[event]
                #expect((counts?.expected ?? 0) > 0, "no \(event) expected: \(context)")
                #expect(counts?.matched == counts?.expected, "\(context)")
            }
            #expect((summary.positions ?? 0) > 5000, "\(context)")
        }

        /// `fleetsim --format traccar` on one topic, `fleetfence serve --traccar-topics` reading it
        /// (docs/trackers.md "Connecting trackers"): the same strict verdict as native positions.
        @Test func traccarForwardsVerifyStrictlyToo() async throws {
            let run = try await Self.verifiedRun(
                clientID: "fleetfence-e2e-traccar", service: [.traccarTopics: "traccar/positions"],
                fleetsim: Self.fleetsimArguments(broker: "{broker}", seed: 2) + ["--format", "traccar", "--topic-template", "traccar/positions"])
            try Self.expectClean(run)
            #expect((Summary(run.output).byEvent["speeding"]?.expected ?? 0) > 0, "speeds in knots arrive as m/s: \(run.context)")
        }

        /// `fleetsim --format mapping` publishing a vendor's JSON on `acme/<device>/gps`, read by the
        /// service through the `inputs.mappings` entry of its config file (docs/trackers.md "A custom format"):
        /// km/h and epoch milliseconds converted back, the same strict verdict.
        @Test func mappedVendorJSONVerifiesStrictlyToo() async throws {
            let run = try await Self.verifiedRun(
                clientID: "fleetfence-e2e-mapping", config: MappingTruckPayload.configYAML(topic: "acme/+/gps"),
                fleetsim: Self.fleetsimArguments(broker: "{broker}", seed: 2) + ["--format", "mapping", "--topic-template", "acme/{device}/gps"])
            try Self.expectClean(run)
            #expect((Summary(run.output).byEvent["speeding"]?.expected ?? 0) > 0, "km/h arrive as m/s: \(run.context)")
        }

        /// `fleetsim --format osmand`: every position a `POST /api/osmand` to the service's HTTP
        /// interface (docs/trackers.md "Traccar Client (OsmAnd)"), alerts still read over MQTT.
        @Test func osmAndOverHTTPVerifiesStrictlyToo() async throws {
            let run = try await Self.verifiedRun(
                clientID: "fleetfence-e2e-osmand",
                fleetsim: Self.fleetsimArguments(broker: "{broker}", seed: 2) + ["--format", "osmand", "--http", "{http}"])
            try Self.expectClean(run)
            #expect((Summary(run.output).byEvent["speeding"]?.expected ?? 0) > 0, "speeds in knots arrive as m/s: \(run.context)")
        }

        /// `fleetsim --format owntracks-http`: `POST /api/owntracks` as user `fleet`, so the devices
        /// are `fleet-truck-<k>` on both sides (docs/trackers.md "OwnTracks over HTTP"). Speeding is
        /// judged on OwnTracks' whole km/h (`vel`), on both sides.
        @Test func ownTracksOverHTTPVerifiesStrictlyToo() async throws {
            let run = try await Self.verifiedRun(
                clientID: "fleetfence-e2e-owntracks",
                fleetsim: Self.fleetsimArguments(broker: "{broker}", seed: 2) + ["--format", "owntracks-http", "--http", "{http}"])
            try Self.expectClean(run)
            #expect((Summary(run.output).byEvent["speeding"]?.expected ?? 0) > 0, "\(run.context)")
            #expect(run.output.contains("fleet-truck-"), "\(run.context)")
        }

        /// A clean strict run that judged enough: every truck crosses fences.
        static func expectClean(_ run: VerifiedRun) throws {
            let context = run.context
            #expect(run.serviceStatus == 0, "\(context)")
            #expect(run.status == 0, "\(context)")
            let summary = Summary(run.output)
            let expected = try #require(summary.counts["expected"], "no summary: \(context)")
            #expect(expected >= 2 * trucks, "\(context)")
            #expect(summary.counts["matched"] == expected && summary.counts["missed"] == 0, "\(context)")
            #expect(summary.counts["false"] == 0 && summary.result == "clean", "\(context)")
            // Every position arrived: none refused by the service or lost on the way.
            #expect((summary.positions ?? 0) > 5000, "\(context)")
            #expect(!context.contains("position dropped") && context.contains("(0 dropped)"), "\(context)")
        }

        /// Set once for both sides, the service's position filters also tell fleetsim where to
        /// publish: the first one that names a topic per device and takes fleetsim's payloads.
        @Test func fleetsimPublishesOnThePositionFilterOfTheEnvironment() async throws {
            let fleetsim = try Self.locateFleetsim()
            try await withLocalBroker { broker in
                let collector = try await MessageCollector.start(options: broker.clientOptions(), filters: ["#"])
                var environment = ChildEnvironment.withoutFleetFenceVariables()
                environment["FLEETFENCE_TOPICS_POSITIONS"] = "owntracks/+/+, trucks/+/pos"
                let run = try await runProcess(
                    fleetsim,
                    ["--broker", broker.url, "--routes", "Simulator/Routes/campus-waypoints.gpx", "--trucks", "1", "--speedup", "200"],
                    directory: Fixtures.packageRoot.path, environment: environment, timeout: .seconds(60))
                #expect(run.status == 0, "\(run.errorOutput)")
                let received = await collector.messages(matching: "#", count: 1)
                // Seen once (2026-11-26, a fresh clone's full run, not reproduced in 6,925 publishes
                // since): two bytes after the topic. The bytes say whose they are if it comes back.
                #expect(
                    received.first?.topic == "trucks/truck-1/pos",
                    "\(received.prefix(3).map { "\(Array($0.topic.utf8)) \($0.text.prefix(200))" })")
                await collector.stop()
            }
        }

        // MARK: Running fleetsim

        /// A verified run against a real `fleetfence serve` on a private mosquitto: the process's exit,
        /// fleetsim's output, and what to show when it fails.
        struct VerifiedRun {
            var status: Int32
            var output: String
            var serviceStatus: Int32
            var serviceLog: String
            var context: String
        }

        /// `fleetsim` with `fleetsim` arguments (`{broker}` stands for the broker's URL, `{http}` for
        /// the service's HTTP interface) against the service started with `settings` beside the
        /// shared ones, and `config` as its config file's text.
        static func verifiedRun(
            clientID: String, service settings: [ConfigurationKey: String] = [:], config: String? = nil,
            fleetsim arguments: [String], statsInterval: Double = 60
        ) async throws -> VerifiedRun {
            let fleetsim = try locateFleetsim()
            let root = Fixtures.packageRoot.path
            return try await withLocalBroker { broker in
                try await withTemporaryDirectory { directory in
                    var options = ServiceProcess.Options(
                        [
                            .brokerURL: broker.url, .fencesFile: root + "/Config/fences.geojson",
                            .journalPath: directory + "/fleetfence.db", .clientID: clientID,
                        ],
                        configText: config)
                    options.set(.debounce, debounce)
                    options.set(.silentConfirm, silentConfirm)
                    options.set(.statsInterval, statsInterval)
                    options.settings.merge(settings) { _, given in given }
                    let service = try await ServiceProcess.start(options, workingDirectory: directory)
                    let run: ProcessResult
                    do {
                        var http = ""
                        if arguments.contains("{http}") { http = try await httpBase(of: service) }
                        run = try await runFleetsim(
                            fleetsim, in: root,
                            arguments: arguments.map { $0 == "{broker}" ? broker.url : $0 == "{http}" ? http : $0 },
                            timeout: .seconds(120))
                    } catch {
                        await service.terminate()
                        throw error
                    }
                    let serviceStatus = await service.terminate()
                    let context = "fleetsim \(arguments.joined(separator: " ")): exit \(run.status)\n--- stdout\n\(run.output.suffix(6000))"
                        + "\n--- stderr\n\(run.errorOutput.suffix(3000))\n--- service log (tail)\n\(service.log.suffix(4000))"
                    return VerifiedRun(
                        status: run.status, output: run.output, serviceStatus: serviceStatus, serviceLog: service.log, context: context)
                }
            }
        }

        /// The service's HTTP interface, `http://127.0.0.1:<port>`: it listens on a free port and
        /// names it in its log line `http listening` (`port=`).
        static func httpBase(of service: ServiceProcess) async throws -> String {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                for line in service.log.split(separator: "\n") where line.contains("http listening") {
                    if let m = line.firstMatch(of: /\ port=(\d+)/) { return "http://127.0.0.1:\(m.1)" }
                }
                try await Task.sleep(for: .milliseconds(50))
            }
            throw TestSupportError("the service named no HTTP port within 20 s:\n\(service.logTail())")
        }

        /// `fleetsim` from the same build as the `fleetfence` that `ServiceProcess` runs:
        /// `FLEETSIM_BINARY` if set, else next to it.
        static func locateFleetsim() throws -> String {
            if let explicit = ProcessInfo.processInfo.environment["FLEETSIM_BINARY"], !explicit.isEmpty {
                return explicit
            }
            let fleetfence = URL(fileURLWithPath: try ServiceProcess.locateExecutable())
            let candidate = fleetfence.deletingLastPathComponent().appendingPathComponent("fleetsim").path
            guard FileManager.default.isExecutableFile(atPath: candidate) else {
                throw TestSupportError("fleetsim not found next to \(fleetfence.path) (build it first: swift build)")
            }
            return candidate
        }

        /// Runs `executable` in `directory` to completion (SIGKILL after `timeout`), without the
        /// test's own FLEETFENCE_* variables, which fleetsim would take as defaults.
        static func runFleetsim(_ executable: String, in directory: String, arguments: [String], timeout: Duration) async throws -> ProcessResult {
            try await runProcess(
                executable, arguments, directory: directory,
                environment: ChildEnvironment.withoutFleetFenceVariables(), timeout: timeout)
        }
    }
}
