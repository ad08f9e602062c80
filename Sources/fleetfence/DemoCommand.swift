import ArgumentParser
import FleetFenceService
import FleetFenceSettings
import FleetSimulator
import Foundation
import GeofenceEngine
import LocalBroker
import Logging

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run everything on loopback: a private mosquitto, the service and the simulator.",
        discussion: """
            Starts mosquitto on a free loopback port, `fleetfence serve` (this executable) against it with \
            the fences file and a journal in a temporary directory, sets the tours, then runs the simulator \
            over the routes. Prints each alert and tour event as it arrives (times are simulated, UTC) and ends with the verification \
            summary: expected, matched, missed and false alerts and their delays. The service's debounce \
            and silent confirmation apply to the verifier too. Exits 0 when the run completed, whatever \
            the summary says.

            Ctrl-C once stops the trucks and still reports, twice reports at once, three times quits; \
            SIGTERM reports at once. An interrupted run exits 128 + the signal, a failed one 1. Every \
            way out stops the service and the broker and removes the temporary files.
            """)

    static let defaultRoutes = "Simulator/Routes"
    static let defaultFences = ServiceConfiguration.Defaults.fencesFile
    static let defaultTours = "Config/tours.json"
    /// The service's default position filter, and the topic the simulator publishes to under it.
    static let positionFilter = "fleet/+/position"
    static let positionTemplate = "fleet/{device}/position"

    @Option(help: "Number of trucks")
    var trucks = 25
    @Option(help: "Simulated seconds per wall-clock second")
    var speedup = 20.0
    @Option(help: "GPS noise: standard deviation per axis, metres (also sent as acc)")
    var noise = 5.0
    @Option(help: "Seed of starts and noise: the same seed drives the same run")
    var seed: UInt64 = 1
    @Option(help: "Simulated seconds between two positions of a truck")
    var interval = 1.0
    @Option(parsing: .upToNextOption, help: "GPX files, or directories of them (default \(Self.defaultRoutes))")
    var routes: [String] = []
    @Option(help: "Fences file (default \(Self.defaultFences))")
    var fences: String?
    @Option(help: "Tours file, set on the service before the trucks start (default \(Self.defaultTours))")
    var tours: String?
    @Option(help: "The service's debounce_s, seconds; the verifier uses the same")
    var debounce = ServiceConfiguration.Defaults.geofence.debounceSeconds
    @Option(name: .customLong("silent-confirm"), help: "The service's silent_confirm_s, seconds; the verifier uses the same")
    var silentConfirm = ServiceConfiguration.Defaults.geofence.silentConfirmSeconds
    @Option(name: .customLong("service-log"), help: "Keep the service's log in this file (default: removed with the run)")
    var serviceLog: String?
    @Option(name: .customLong("log-level"), help: "The demo's own log level: trace, debug, info, notice, warning, error")
    var logLevel = "info"
    @Option(help: "Where the map and the HTTP API listen (default 127.0.0.1:8080, or a free port when 8080 is taken)")
    var http: String?
    @Flag(inversion: .prefixedNo, help: "After the summary keep the service serving the map until Ctrl-C (default: when standard output is a terminal)")
    var linger: Bool?

    func validate() throws {
        guard trucks >= 1 else { throw ValidationError("--trucks must be at least 1") }
        guard speedup > 0, speedup.isFinite else { throw ValidationError("--speedup must be a positive number") }
        guard noise >= 0, noise.isFinite else { throw ValidationError("--noise must be 0 or more metres") }
        guard interval > 0, interval.isFinite else { throw ValidationError("--interval must be a positive number") }
        guard debounce >= 0, debounce.isFinite else { throw ValidationError("--debounce must be 0 or more seconds") }
        guard silentConfirm > 0, silentConfirm.isFinite else { throw ValidationError("--silent-confirm must be positive") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
    }

    func run() async throws {
        // A closed stdout (`| head`) must not kill the demo before it stops its children.
        signal(SIGPIPE, SIG_IGN)
        let logger = LogSetup.bootstrap(level: logLevel, label: "fleetfence-demo")
        let teardown = DemoTeardown()
        let signals = DemoSignals(teardown: teardown)
        let listening = await signals.install()
        defer { listening.cancel() }
        let report: VerifyReport
        let mapURL: String
        do {
            let plan = try prepare()
            mapURL = "http://\(plan.http)/"
            // First, so that it can be opened while everything starts.
            DemoOutput.line("map:       \(mapURL)")
            report = try await demonstrate(plan, teardown: teardown, signals: signals, logger: logger)
        } catch {
            teardown.run()
            // A signal handler is quitting: this error is its doing; exit as the handler does.
            if signals.quitting, let number = signals.received { throw ExitCode(128 + number) }
            DemoOutput.note("fleetfence demo: \(error)")
            throw ExitCode.failure
        }
        if linger ?? (isatty(STDOUT_FILENO) == 1), signals.received == nil {
            // The map stays up to be looked at; the summary is still the last word of the run.
            signals.linger()
            DemoOutput.line("")
            DemoOutput.line(report.summary)
            DemoOutput.line("")
            DemoOutput.line("The service keeps serving the map at \(mapURL); Ctrl-C stops it and the broker.")
            while true { try? await Task.sleep(for: .seconds(3600)) }
        }
        // Everything stopped before the summary, so that the summary is the last word.
        teardown.run()
        DemoOutput.line("")
        // The alerts were printed as they came: the summary only.
        DemoOutput.line(report.summary)
        if let interrupted = signals.received { throw ExitCode(128 + interrupted) }
    }

    // MARK: Steps

    /// What can be checked before anything starts: files, routes, fences.
    private struct Plan {
        var executable: String
        var routes: [GPXRoute]
        var fencesFile: String
        var tours: [TourDefinition]
        var verify: VerifyOptions
        var settings: GeofenceSettings
        /// `host:port` of the HTTP interface.
        var http: String
    }

    private func prepare() throws -> Plan {
        var settings = ServiceConfiguration.Defaults.geofence
        settings.debounceSeconds = debounce
        settings.silentConfirmSeconds = silentConfirm
        let routePaths = try (routes.isEmpty ? [Self.defaultRoutes] : routes).map {
            try DemoPaths.resolve($0, isDefault: routes.isEmpty, what: "routes")
        }
        let fencesFile = try DemoPaths.resolve(fences ?? Self.defaultFences, isDefault: fences == nil, what: "fences file")
        let toursFile = try DemoPaths.resolve(tours ?? Self.defaultTours, isDefault: tours == nil, what: "tours file")
        let loaded: [GPXRoute]
        let loadedTours: [TourDefinition]
        let verify: VerifyOptions
        do {
            loaded = try RouteLoader.load(paths: routePaths)
            loadedTours = try TourFile.load(contentsOf: URL(fileURLWithPath: toursFile))
            verify = try VerifyOptions(
                fencesFile: fencesFile, debounceSeconds: settings.debounceSeconds,
                hysteresisMeters: settings.hysteresisMeters, silentConfirmSeconds: settings.silentConfirmSeconds,
                minRadiusMeters: settings.minRadiusMeters, maxRadiusMeters: settings.maxRadiusMeters,
                maxAccuracyMeters: settings.maxAccuracyMeters, interval: interval)
        } catch {
            throw DemoError("\(error)")
        }
        return Plan(
            executable: try Self.serviceExecutable(), routes: loaded, fencesFile: fencesFile, tours: loadedTours,
            verify: verify, settings: settings, http: try http ?? Self.defaultHTTP())
    }

    private func demonstrate(
        _ plan: Plan, teardown: DemoTeardown, signals: DemoSignals, logger: Logger
    ) async throws -> VerifyReport {
        let broker: LocalMosquitto
        do {
            broker = try LocalMosquitto.start()
        } catch {
            throw DemoError("cannot start the demo's mosquitto: \(error)")
        }
        teardown.add { broker.stop() }
        DemoOutput.line("mosquitto: 127.0.0.1:\(broker.port) (pid \(broker.processID)), private to this demo")

        let workspace = try DemoPaths.makeWorkspace()
        teardown.add { try? FileManager.default.removeItem(atPath: workspace) }
        let prefix = ServiceConfiguration.Defaults.prefix
        // Every key the verifier depends on is a flag, so that the service and the verifier cannot
        // disagree; the config file is the demo's own, so that `Config/fleetfence.yaml` in the
        // working directory (perhaps pointing at a production broker) plays no part.
        var options = ServiceProcess.Options([
            .brokerURL: broker.url, .fencesFile: plan.fencesFile, .journalPath: workspace + "/fleetfence.db",
            .clientID: "fleetfence-demo-\(getpid())", .prefix: prefix, .positionTopics: Self.positionFilter,
            .logLevel: "info", .httpListen: plan.http,
        ])
        let geofence: [(ConfigurationKey, Double)] = [
            (.debounce, plan.settings.debounceSeconds), (.silentConfirm, plan.settings.silentConfirmSeconds),
            (.hysteresis, plan.settings.hysteresisMeters), (.minRadius, plan.settings.minRadiusMeters),
            (.maxRadius, plan.settings.maxRadiusMeters), (.maxAccuracy, plan.settings.maxAccuracyMeters),
        ]
        for (key, value) in geofence { options.set(key, value) }
        let service: ServiceProcess
        do {
            service = try ServiceProcess(
                executable: plan.executable, options: options, configFile: workspace + "/fleetfence.yaml",
                logPath: serviceLog ?? workspace + "/service.log")
        } catch {
            throw DemoError(error.description)
        }
        teardown.add { Self.stop(service, quietly: signals.quitting) }
        DemoOutput.line("service:   fleetfence serve (pid \(service.processID)), fences \(plan.fencesFile), journal in \(workspace)")
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .notice)
        try await DemoServiceReadiness.wait(
            for: service, brokerURL: broker.url, prefix: prefix, fences: plan.verify.fences.count, logger: quiet)

        DemoOutput.line("")
        DemoOutput.line("Watch the same alerts from another terminal:")
        DemoOutput.line("  mosquitto_sub -h 127.0.0.1 -p \(broker.port) -t '\(prefix)/alerts/#' -v"
            + (Self.onPath("mosquitto_sub") ? "" : "   (from Debian's mosquitto-clients package)"))
        DemoOutput.line("")
        DemoOutput.line(String(
            format: "%d trucks on %d routes at %gx, noise %g m, seed %llu. Alerts (simulated time, UTC):",
            trucks, plan.routes.count, speedup, noise, seed))

        let simulation = try Simulation(options: simulationOptions(plan, brokerURL: broker.url, prefix: prefix), logger: logger)
        let monitor = DemoMonitor(service: service, broker: broker, simulation: simulation)
        signals.driving(simulation)
        let result: VerifyReport?
        do {
            result = try await simulation.run { line in DemoOutput.line(line) }
        } catch {
            signals.driving(nil)
            monitor.stop()
            throw error
        }
        signals.driving(nil)
        monitor.stop()
        if let reason = monitor.failureReason { throw DemoError(reason) }
        guard let result else { throw DemoError("the simulation returned no report") }
        return result
    }

    private func simulationOptions(_ plan: Plan, brokerURL: String, prefix: String) -> SimulationOptions {
        var options = SimulationOptions(routes: plan.routes)
        options.broker = brokerURL
        options.alertsPrefix = prefix
        options.topicTemplate = Self.positionTemplate
        options.speedup = speedup
        options.progress = true
        options.clientIDPrefix = "fleetfence-demo-\(getpid())-sim-"
        options.fleet.trucks = trucks
        options.fleet.interval = interval
        options.fleet.noise = noise
        options.fleet.seed = seed
        // Now, once the service is ready: simulated time starts when the trucks do.
        options.fleet.startTime = Date().timeIntervalSince1970.rounded(.down)
        options.tours = plan.tours
        options.verify = plan.verify
        return options
    }

    /// SIGTERM and wait; a service that does not stop cleanly is worth a word (one that had
    /// already ended was reported when it did; one stopped while quitting may not have had its
    /// signal handlers yet).
    private static func stop(_ service: ServiceProcess, quietly: @autoclosure () -> Bool) {
        let wasRunning = service.isRunning
        let status = service.terminate()
        if wasRunning, status != 0, !quietly() {
            DemoOutput.note("fleetfence demo: the service ended with status \(status); its last lines:\n" + service.logTail(10))
        }
    }

    /// This executable: the service under demonstration is the one built with the demo.
    private static func serviceExecutable() throws -> String {
        do {
            return try ServiceProcess.locateExecutable()
        } catch {
            throw DemoError("cannot tell where this fleetfence executable is; run it by its path")
        }
    }

    /// 127.0.0.1:8080 as the service's own default, unless something already listens there.
    private static func defaultHTTP() throws -> String {
        if LocalMosquitto.isFree(port: 8080) { return "127.0.0.1:8080" }
        return "127.0.0.1:\(try LocalMosquitto.freeLoopbackPort())"
    }

    private static func onPath(_ program: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
        }
    }
}
