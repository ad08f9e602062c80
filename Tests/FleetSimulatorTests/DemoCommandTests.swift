import FleetFenceTesting
import Foundation
import LocalBroker
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `fleetfence demo` as a user runs it: the built binary, its own mosquitto and service, the
/// bundled routes. A short run (6 trucks at 100x, 2 s silent confirmation) keeps it near 15 s.
@Suite("fleetfence demo, end to end", .serialized, .timeLimit(.minutes(3)))
struct DemoCommandTests {
    static let shortRun = ["demo", "--trucks", "6", "--speedup", "100", "--silent-confirm", "2"]

    @Test func printsAlertsTheWatchCommandAndASummaryAndLeavesNothingBehind() async throws {
        let run = try await DemoRun.start(Self.shortRun)
        let status = try await run.finish(within: .seconds(120))
        let output = run.output
        #expect(status == 0, "\(run.transcript)")

        let broker = try #require(run.pid(of: "mosquitto:"), "\(run.transcript)")
        let port = try #require(output.firstMatch(of: /mosquitto: 127\.0\.0\.1:(\d+)/).map { String($0.1) })
        // The map's address comes first, to be opened while the rest starts.
        #expect(output.hasPrefix("map:       http://127.0.0.1:"), "\(run.transcript)")
        #expect(output.contains("mosquitto_sub -h 127.0.0.1 -p \(port) -t 'fleetfence/alerts/#' -v"))
        let alerts = output.split(separator: "\n").filter(Self.isAlertLine)
        #expect(alerts.count >= 6, "\(run.transcript)")
        // The summary comes last, after every alert.
        let summary = try #require(output.range(of: "verify: 6 trucks"), "\(run.transcript)")
        #expect(alerts.allSatisfy { output.range(of: $0)!.lowerBound < summary.lowerBound })
        // The service and the verifier must use the same rules (debounce, silence): anything
        // else shows as missed or false alerts.
        #expect(output.firstMatch(of: /matched +[1-9]/) != nil, "\(run.transcript)")
        #expect(output.firstMatch(of: /missed +0\n/) != nil && output.firstMatch(of: /false +0\n/) != nil, "\(run.transcript)")
        #expect(output.contains("result: clean"), "\(run.transcript)")
        // The bundled tour's events too: trucks 5 and 6 drive the delivery routes.
        #expect(alerts.contains { $0.contains("STOP_VISITED dock-a, tour deliveries stop_index 0") }, "\(run.transcript)")
        #expect(alerts.contains { $0.contains("TOUR_COMPLETED dock-c") }, "\(run.transcript)")

        try run.expectNothingLeft(broker: broker)
    }

    @Test func ctrlCStillReportsAndLeavesNothingBehind() async throws {
        // Full speed: long enough a run that the interrupt lands while trucks drive.
        let run = try await DemoRun.start(["demo", "--trucks", "6", "--silent-confirm", "2"])
        try await run.waitForOutput("Alerts (simulated time, UTC):", within: .seconds(30))
        try await Task.sleep(for: .seconds(2))
        run.signal(SIGINT)
        let status = try await run.finish(within: .seconds(60))
        #expect(status == 128 + SIGINT, "\(run.transcript)")
        #expect(run.output.contains("verify: 6 trucks"), "\(run.transcript)")
        #expect(run.errors.contains("trucks stopped"), "\(run.transcript)")
        try run.expectNothingLeft(broker: try #require(run.pid(of: "mosquitto:")))
    }

    /// With --linger (the default on a terminal) the service keeps serving the map after the
    /// summary, until Ctrl-C ends the demo as done.
    @Test func lingersServingTheMapUntilCtrlC() async throws {
        let port = try LocalMosquitto.freeLoopbackPort()
        let run = try await DemoRun.start(Self.shortRun + ["--http", "127.0.0.1:\(port)", "--linger"])
        try await run.waitForOutput("keeps serving the map at http://127.0.0.1:\(port)/", within: .seconds(120))
        let (page, response) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/")!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: page, as: UTF8.self).contains("<title>FleetFence: live map</title>"))
        let (events, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(port)/api/events")!)
        #expect(String(decoding: events, as: UTF8.self).contains(#""event":"enter""#))
        run.signal(SIGINT)
        #expect(try await run.finish(within: .seconds(30)) == 0, "\(run.transcript)")
        try run.expectNothingLeft(broker: try #require(run.pid(of: "mosquitto:")))
    }

    @Test func aMissingFencesFileIsAClearError() async throws {
        let run = try await DemoRun.start(["demo", "--fences", "/nonexistent/fences.geojson"])
        let status = try await run.finish(within: .seconds(30))
        #expect(status == 1)
        #expect(run.errors.contains("fences file /nonexistent/fences.geojson not found"), "\(run.transcript)")
    }

    /// `HH:MM:SS truck-N EVENT fence ...`, as AlertLine writes it.
    static func isAlertLine(_ line: Substring) -> Bool {
        line.wholeMatch(of: /\d\d:\d\d:\d\d truck-\d+ (ENTER|EXIT |DWELL|SPEEDING|STOP_VISITED|STOP_SKIPPED|TOUR_COMPLETED) [a-z0-9-]+.*/) != nil
    }
}

/// One run of the built `fleetfence` (see `LaunchedProgram`: output in files, never outlives the test).
private final class DemoRun: Sendable {
    let program: LaunchedProgram

    static func start(_ arguments: [String]) async throws -> DemoRun {
        // The package root: where the demo's default routes and fences are.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return DemoRun(program: try LaunchedProgram(
            try ServiceProcess.locateExecutable(), arguments, directory: root.path,
            environment: ChildEnvironment.withoutFleetFenceVariables()))
    }

    private init(program: LaunchedProgram) {
        self.program = program
    }

    var output: String { program.output }
    var errors: String { program.errorOutput }
    var transcript: String { "stdout:\n\(output)\nstderr:\n\(errors)" }

    func signal(_ number: Int32) {
        program.signal(number)
    }

    /// The exit status; on timeout the demo is sent SIGTERM (it cleans up) and the test fails.
    func finish(within timeout: Duration) async throws -> Int32 {
        guard await program.waitForExit(within: timeout) else {
            signal(SIGTERM)
            try await Task.sleep(for: .seconds(15))
            throw TestSupportError("fleetfence demo did not finish within \(timeout)\n\(transcript)")
        }
        return program.status ?? -1
    }

    func waitForOutput(_ text: String, within timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while !output.contains(text) {
            guard ContinuousClock.now < deadline, program.isRunning else {
                throw TestSupportError("no \"\(text)\" from fleetfence demo\n\(transcript)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The pid the demo printed on the line starting with `label` (`mosquitto:`, `service:`).
    func pid(of label: String) -> Int32? {
        output.split(separator: "\n").first { $0.hasPrefix(label) }?
            .firstMatch(of: /\(pid (\d+)/).flatMap { Int32($0.1) }
    }

    /// The broker, the service, their watchdogs and the demo's temporary directory are gone.
    func expectNothingLeft(broker: Int32, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let service = try #require(pid(of: "service:"), "\(transcript)", sourceLocation: sourceLocation)
        let workspace = try #require(
            output.firstMatch(of: /journal in (\S+)/).map { String($0.1) }, sourceLocation: sourceLocation)
        for pid in [broker, service] {
            #expect(!ProcessTable.isAlive(pid), "pid \(pid) survived the demo", sourceLocation: sourceLocation)
        }
        // Watchdogs (`sh -c <script> watchdog <pid>`, see LocalBroker's Watchdog) name the pid they
        // guard; the service names the workspace (its journal).
        let leftovers = ProcessTable.commandLines().filter { _, line in
            line.contains(workspace) || line.hasSuffix(" watchdog \(broker) ") || line.hasSuffix(" watchdog \(service) ")
        }
        #expect(leftovers.isEmpty, "left behind: \(leftovers)", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: workspace), "\(workspace) left behind", sourceLocation: sourceLocation)
    }
}
