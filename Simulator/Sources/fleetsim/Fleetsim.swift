import ArgumentParser
import FleetSimulator
import Foundation
import GeofenceEngine
import Logging
import UnixSignals

@main
struct Fleetsim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleetsim",
        abstract: "Replays GPX routes as a fleet of trucks sending positions over MQTT or the service's HTTP inputs.",
        discussion: """
            Truck k drives route (k-1) mod R, starting at a seeded time within --stagger seconds. \
            Simulated time runs --speedup times faster than the wall clock; positions carry it in `ts`. \
            With --tours the tours are set on the service first. With --verify the service's alerts \
            (enter, exit, dwell, speeding) and tour events (stop_visited, stop_skipped, tour_completed) \
            are scored against the noise-free paths: expected, matched, missed, false and ambiguous, \
            and their delays. \
            Ctrl-C stops publishing (and still reports); a second Ctrl-C reports at once.

            Defaults for the broker, the alerts prefix, the fences file and the rules come from the \
            service's FLEETFENCE_* environment variables when set (flags win), so that both sides agree.
            """)

    // MARK: Broker and topics

    @Option(help: "Broker URL, mqtt:// or mqtts://, or a cluster's nodes separated by commas, tried in order [env FLEETFENCE_BROKER_URL; default mqtt://127.0.0.1:1883]")
    var broker: String?
    @Option(help: "Broker user name [env FLEETFENCE_BROKER_USERNAME]")
    var username: String?
    @Option(name: .customLong("password-file"), help: "File holding the broker password [env FLEETFENCE_BROKER_PASSWORD_FILE]")
    var passwordFile: String?
    @Option(name: .customLong("ca-file"), help: "CA bundle for mqtts:// [env FLEETFENCE_BROKER_CA_FILE]")
    var caFile: String?
    @Option(
        name: .customLong("topic-template"),
        help: "Position topic; {device} is the device id [env FLEETFENCE_TOPICS_POSITIONS: its first filter with one + and not owntracks/, {device} for the +; default fleet/{device}/position]")
    var topicTemplate: String?
    @Option(
        help: """
            Position format (docs/trackers.md "Connecting trackers"): native; traccar (Traccar's forwarded positions, the device in device.uniqueId; \
            run the service with --traccar-topics and give a --topic-template it names); mapping (a vendor JSON for an inputs.mappings \
            entry, e.g. --topic-template acme/{device}/gps); osmand (POST /api/osmand on --http); owntracks-http (POST /api/owntracks \
            on --http, as user fleet: device ids fleet-<prefix><k>, whole-second --interval)
            """)
    var format: PositionFormat = .native
    @Option(help: "The service's HTTP interface, e.g. http://127.0.0.1:8080: where --format osmand and owntracks-http send positions")
    var http: String?
    @Option(help: "Device ids are <prefix><k> (fleet-<prefix><k> with --format owntracks-http)")
    var prefix = "truck-"
    @Option(help: "QoS of positions, 0 or 1")
    var qos: Int32 = 0
    @Option(help: "Publishing connections: one per truck up to this many, then shared")
    var connections = 50

    // MARK: Fleet

    @Option(parsing: .upToNextOption, help: "GPX files, or directories of them")
    var routes: [String] = ["Simulator/Routes"]
    @Option(help: "Number of trucks")
    var trucks = 25
    @Option(help: "Simulated seconds per wall-clock second")
    var speedup = 20.0
    @Option(help: "Simulated seconds between two positions of a truck")
    var interval = 1.0
    @Option(help: "Position noise: standard deviation per axis, metres (also sent as acc)")
    var noise = 0.0
    @Option(help: "Seed of starts, directions and noise")
    var seed: UInt64 = 1
    @Option(name: .customLong("parked-interval"), help: "Simulated seconds between two positions while a truck stands still [default: --interval]")
    var parkedInterval: Double?
    @Option(help: "Coverage gaps per truck and simulated hour: the fixes of a gap are kept and sent when it ends")
    var gaps = 0.0
    @Option(name: .customLong("gap-length"), help: "Length of a coverage gap, simulated seconds, MIN-MAX")
    var gapLength = "60-600"
    @Option(help: "How a tracker back in coverage sends its kept fixes: oldest-first, live-first (the live fix, then the backlog oldest first) or newest-first (the live fix, then the backlog newest first)")
    var backlog = "oldest-first"
    @Option(name: .customLong("backlog-behind"), help: "Live fixes sent after a gap before its backlog, with live-first or newest-first (a tracker uploading what it kept while it goes on reporting)")
    var backlogBehind = 1
    @Option(help: "Share of --interval (0 to less than 1) by which the time between two fixes varies either way, as real trackers' reports jitter")
    var jitter = 0.0
    @Option(help: "Share of positions (0-1) displaced 300-1500 m with an ordinary acc (multipath)")
    var outliers = 0.0
    @Option(name: .customLong("speed-kmh"), help: "Speed on routes without times")
    var speedKmh = 50.0
    @Option(help: "Starts spread over this many simulated seconds")
    var stagger = 120.0
    @Flag(help: "Drive routes back and forth until --duration (or Ctrl-C)")
    var loop = false
    @Flag(help: "Half the trucks (seeded) drive their route backwards")
    var reverse = false
    @Option(help: "Stop after this many simulated seconds")
    var duration: Double?
    @Option(name: .customLong("start-time"), help: "Simulated start: now, epoch seconds or RFC 3339")
    var startTime = "now"
    @Option(help: "Tours (a JSON array of tour definitions) to set on <alerts-prefix>/tours/<id>/set before the trucks start; with --verify their events are scored")
    var tours: String?

    // MARK: Verify

    @Flag(help: "Score the service's alerts against ground truth")
    var verify = false
    @Option(help: "Fences the service runs with [env FLEETFENCE_FENCES_FILE; default Config/fences.geojson]")
    var fences: String?
    @Option(name: .customLong("alerts-prefix"), help: "The service's topic root [env FLEETFENCE_TOPICS_PREFIX; default fleetfence]")
    var alertsPrefix: String?
    @Option(help: "Wall seconds to wait for alerts after the last position [default: debounce/speedup + silent confirm + 2]")
    var settle: Double?
    @Flag(help: "Exit 1 on any missed or false alert or tour event")
    var strict = false
    @Option(help: "Simulated seconds between an alert's at and the true crossing for a match")
    var tolerance = 60.0
    @Option(help: "The service's debounce_s [env FLEETFENCE_GEOFENCE_DEBOUNCE_S; default 20]")
    var debounce: Double?
    @Option(help: "The service's hysteresis_m [env FLEETFENCE_GEOFENCE_HYSTERESIS_M; default 10]")
    var hysteresis: Double?
    @Option(name: .customLong("silent-confirm"), help: "The service's silent_confirm_s [env FLEETFENCE_GEOFENCE_SILENT_CONFIRM_S; default 20]")
    var silentConfirm: Double?
    @Option(name: .customLong("min-radius"), help: "The service's min_radius_m [env FLEETFENCE_GEOFENCE_MIN_RADIUS_M; default 20]")
    var minRadius: Double?
    @Option(name: .customLong("max-radius"), help: "The service's max_radius_m [env FLEETFENCE_GEOFENCE_MAX_RADIUS_M; default 100000]")
    var maxRadius: Double?
    @Option(name: .customLong("max-accuracy"), help: "The service's max_accuracy_m [env FLEETFENCE_GEOFENCE_MAX_ACCURACY_M; default 100]")
    var maxAccuracy: Double?

    // MARK: Output

    @Flag(name: .customLong("print-alerts"), help: "Print each alert as it arrives")
    var printAlerts = false
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error, critical")
    var logLevel = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
        guard StartTime.parse(startTime) != nil else { throw ValidationError("--start-time: now, epoch seconds or RFC 3339") }
        guard Self.range(gapLength) != nil else { throw ValidationError("--gap-length: MIN-MAX seconds, 0 <= MIN <= MAX") }
        guard FleetOptions.BacklogOrder(rawValue: backlog) != nil else { throw ValidationError("--backlog: oldest-first, live-first or newest-first") }
        guard backlogBehind >= 1 else { throw ValidationError("--backlog-behind: live fixes, 1 or more") }
        guard backlogBehind == 1 || backlog != "oldest-first" else {
            throw ValidationError("--backlog-behind: with --backlog live-first or newest-first (an oldest-first backlog goes before the live fix)")
        }
        guard jitter >= 0, jitter < 1 else { throw ValidationError("--jitter: a share of --interval from 0 to less than 1") }
        guard (0...1).contains(outliers) else { throw ValidationError("--outliers: a share from 0 to 1") }
        guard gaps >= 0, gaps.isFinite else { throw ValidationError("--gaps: gaps per truck and hour, 0 or more") }
        if let parkedInterval, !(parkedInterval > 0) { throw ValidationError("--parked-interval: seconds, more than 0") }
    }

    func run() async throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "fleetsim")
        do {
            let code = try await simulate(logger: logger)
            if code != 0 { throw ExitCode(code) }
        } catch let error as ExitCode {
            throw error
        } catch {
            FileHandle.standardError.write(Data("fleetsim: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }

    /// 0, or 1 when --strict finds missed or false alerts.
    private func simulate(logger: Logger) async throws -> Int32 {
        var options = SimulationOptions(routes: try RouteLoader.load(paths: routes))
        options.broker = broker ?? Self.environment("BROKER_URL") ?? options.broker
        options.username = username ?? Self.environment("BROKER_USERNAME")
        if let file = passwordFile ?? Self.environment("BROKER_PASSWORD_FILE") {
            options.password = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .newlines)
        }
        options.caFile = caFile ?? Self.environment("BROKER_CA_FILE")
        options.topicTemplate =
            try topicTemplate ?? Self.environment("TOPICS_POSITIONS").map(PositionTopicTemplate.derive(fromFilters:))
            ?? PositionTopicTemplate.standard
        options.format = format
        options.http = http
        options.qos = qos
        options.maxConnections = connections
        options.alertsPrefix = alertsPrefix ?? Self.environment("TOPICS_PREFIX") ?? options.alertsPrefix
        options.speedup = speedup
        options.progress = true
        options.clientIDPrefix = "fleetsim-\(ProcessInfo.processInfo.processIdentifier)-"
        options.fleet.trucks = trucks
        options.fleet.interval = interval
        options.fleet.noise = noise
        options.fleet.seed = seed
        options.fleet.speedKmh = speedKmh
        options.fleet.stagger = stagger
        options.fleet.loop = loop
        options.fleet.reverse = reverse
        options.fleet.duration = duration
        options.fleet.prefix = prefix
        options.fleet.parkedInterval = parkedInterval
        options.fleet.gapsPerHour = gaps
        options.fleet.gapLength = Self.range(gapLength)!
        options.fleet.backlog = FleetOptions.BacklogOrder(rawValue: backlog)!
        options.fleet.outliers = outliers
        options.fleet.backlogBehind = backlogBehind
        options.fleet.jitter = jitter
        options.fleet.startTime = StartTime.parse(startTime)!
        if let tours {
            options.tours = try TourFile.load(contentsOf: URL(fileURLWithPath: tours))
        }
        let defaults = GeofenceSettings()
        options.futureLimit = Self.number("GEOFENCE_MAX_FUTURE_S") ?? defaults.maxFutureSeconds
        var silence = defaults.silentConfirmSeconds
        if verify {
            silence = silentConfirm ?? Self.number("GEOFENCE_SILENT_CONFIRM_S") ?? silence
            var check = try VerifyOptions(
                fencesFile: fences ?? Self.environment("FENCES_FILE") ?? "Config/fences.geojson",
                debounceSeconds: debounce ?? Self.number("GEOFENCE_DEBOUNCE_S") ?? defaults.debounceSeconds,
                hysteresisMeters: hysteresis ?? Self.number("GEOFENCE_HYSTERESIS_M") ?? defaults.hysteresisMeters,
                silentConfirmSeconds: silence,
                minRadiusMeters: minRadius ?? Self.number("GEOFENCE_MIN_RADIUS_M") ?? defaults.minRadiusMeters,
                maxRadiusMeters: maxRadius ?? Self.number("GEOFENCE_MAX_RADIUS_M") ?? defaults.maxRadiusMeters,
                maxAccuracyMeters: maxAccuracy ?? Self.number("GEOFENCE_MAX_ACCURACY_M") ?? defaults.maxAccuracyMeters,
                interval: interval)
            check.settle = settle
            check.tolerance = tolerance
            options.verify = check
        }

        let simulation = try Simulation(options: options, logger: logger)
        let signals = await Self.stopOnSignals(simulation, logger: logger, verifying: verify)
        defer { signals.cancel() }
        let printer: (@Sendable (String) -> Void)? = printAlerts ? { @Sendable line in Self.printLine(line) } : nil
        guard let report = try await simulation.run(onAlert: printer) else { return 0 }
        Self.printLine(report.description)
        return strict && !report.isClean ? 1 : 0
    }

    /// SIGINT and SIGTERM: the first stops publishing, the second skips the wait, the third quits.
    private static func stopOnSignals(_ simulation: Simulation, logger: Logger, verifying: Bool) async -> Task<Void, Never> {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        return Task {
            for await _ in signals {
                simulation.stop()
                switch simulation.stopRequests {
                case 1 where verifying:
                    logger.notice("stopping: waiting for the service's last alerts (interrupt again to report now)")
                case 1: logger.notice("stopping")
                case 2: logger.notice("reporting now (interrupt again to quit)")
                default: Foundation.exit(130)
                }
            }
        }
    }

    /// Whole lines in one write: `print` buffers a pipe by blocks, so a log line on standard
    /// error could land in the middle of an alert.
    private static func printLine(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private static func environment(_ key: String) -> String? {
        ProcessInfo.processInfo.environment["FLEETFENCE_\(key)"].flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func number(_ key: String) -> Double? {
        environment(key).flatMap(Double.init)
    }

    /// `MIN-MAX` seconds.
    static func range(_ text: String) -> ClosedRange<Double>? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]), low >= 0, low <= high else { return nil }
        return low...high
    }
}

extension PositionFormat: ExpressibleByArgument {}
