// fleetbench: FleetFence end to end on loopback, against the broker's own ceiling.
//
// How to run (release build; it starts the release `fleetfence` that sits next to its own executable):
//
//     swift build -c release --product fleetfence
//     swift run -c release fleetbench
//
// or with a separate scratch path: `swift build -c release --scratch-path .build-bench --product fleetfence`,
// the same with `--product fleetbench`, then `.build-bench/release/fleetbench`.
//
// In one run, on a private mosquitto (LocalMosquitto, max_queued_messages and max_inflight_messages raised):
//  1. ceiling: one publisher -> one subscriber that only counts, QoS 0 and QoS 1 (rate at the subscriber,
//     first to last message); ~100-byte position payloads for 10,000 devices `fleet/truck-<k>/position`.
//  2. service: `fleetfence serve` with 10,000 fences (circles, 10% polygons) takes the same stream; the
//     stream ends with a marker device whose last sample confirms an enter, so the marker's alert says
//     every earlier message was processed: positions/s = messages / (first publish -> that alert).
//  3. latency: at half the QoS 0 ceiling, probe devices enter fences; publish time of the confirming
//     sample -> its alert, p50/p99/max (HdrHistogram). The same load on topics the service does not read
//     gives the broker path's own latency; where the service saturates, a second run at half its own rate.
//  4. scale: VmRSS of the service after 100,000 and 1,000,000 more devices sent one position each.
//  5. start-up with 100,000 fences: process start -> `status` online and -> `fences loaded`.
// `--cluster` runs instead the same streams through one instance on mosquitto and through 1, 2 and 4
// instances on a private three-node NATS cluster (docs/several-instances.md "Several instances"): positions/s, each
// instance's CPU per position, and the brokers' CPU per message.
// Not by default, and alone: `--only soak` (Scripts/soak) keeps half the ceiling going for
// `--soak-minutes` with a churning fleet, a stalled subscriber and a slow stream reader, and prints
// a line of figures a minute and their trends (SoakPhase).
// It prints a table and a RESULT line; everything it started is stopped, also on error (and by
// watchdogs if this process dies). `--only`, `--q0-messages` etc. make smaller runs; `--wrap` runs the
// service under a profiler, e.g. `--wrap "valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out"`;
// `--broker-config "set_tcp_nodelay false"` measures mosquitto's own default (LocalBroker, like
// Config/mosquitto.conf, turns Nagle off: ~25 ms less alert latency, some QoS 0 throughput);
// `--keep-files` keeps the service logs, journals and per-probe latencies (latency-*.csv, soak-probes.csv).
import ArgumentParser
import Foundation

@main
struct FleetBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleetbench",
        abstract: "Measure FleetFence end to end against the broker's own ceiling (loopback, private mosquitto)."
    )

    @Option(help: "Phases to run, comma-separated: ceiling, throughput, latency, scale, startup; or soak, alone (Scripts/soak).")
    var only: String?

    @Option(help: "Positions in the QoS 0 stream.")
    var q0Messages = 300_000

    @Option(help: "Positions in the QoS 1 stream (kept well below 65k unacknowledged at a time).")
    var q1Messages = 100_000

    @Option(help: "Trucks publishing the streams.")
    var devices = 10_000

    @Option(help: "Fences the service loads for throughput and latency.")
    var fences = 10_000

    @Option(help: "geofence.debounce_s given to the service.")
    var debounce = 2.0

    @Option(help: "Seconds of paced load in the latency phase.")
    var latencySeconds = 8.0

    @Option(help: "Rate of the latency phase when the ceiling is not measured in this run.")
    var latencyRate = 30_000.0

    @Option(help: "Probe devices (alerts timed) in the latency phase.")
    var probes = 300

    @Option(help: "Devices added in the scale phase, comma-separated cumulative steps.")
    var scaleSteps = "100000,1000000"

    @Option(help: "Further reports of every device in the scale phase, each a minute ±20% after the last: what trackers' jitter costs.")
    var scaleJitteredReports = 0

    @Option(help: "Fences of the start-up phase.")
    var startupFences = 100_000

    @Option(help: "Seconds the start-up phase waits for the fences to be in effect.")
    var startupLimit = 60.0

    @Option(help: "Seconds one service measurement may take before the run fails.")
    var phaseLimit = 120.0

    @Option(help: "Seconds after which the whole run is abandoned (children are stopped by their watchdogs).")
    var timeLimit = 900.0

    @Option(help: "Seed of fleet, fences and scale positions.")
    var seed: UInt64 = 42

    @Option(help: "The fleetfence executable (default: next to this one).")
    var service: String?

    @Option(help: "Command words put before the service (a profiler).")
    var wrap: String?

    @Option(help: "A mosquitto.conf line for the private broker (repeatable), e.g. \"set_tcp_nodelay false\".")
    var brokerConfig: [String] = []

    @Option(help: "Soak: minutes of load.")
    var soakMinutes = 60.0

    @Option(help: "Soak: positions per second (default: half the broker's QoS 0 ceiling, measured first).")
    var soakRate: Double?

    @Option(help: "Soak: seconds between two positions of a device (the fleet is rate x this many devices).")
    var soakInterval = 5.0

    @Option(help: "Soak: percent of the fleet replaced by new device ids every minute.")
    var soakChurn = 2.0

    @Option(help: "Soak: the service's geofence.forget_after_s.")
    var soakForgetAfter = 120.0

    @Flag(help: "Keep the run's directory (journals, service logs, fences files).")
    var keepFiles = false

    @Flag(help: "Beside every service: a reader of /api/stream, a scraper of /metrics every second, a poller of /api/devices every 100 ms.")
    var httpLoad = false

    @Flag(help: "Home Assistant discovery on in every service (its first-sight burst shows in the scale phase).")
    var homeAssistant = false

    @Option(name: .customLong("late-window"), help: "The services' geofence.late_window_s (0: no samples held for late ones, to compare).")
    var lateWindow: Double?

    @Flag(help: "Instead of the phases: one instance on mosquitto beside P instances on a three-node NATS cluster (docs/several-instances.md \"Several instances\").")
    var cluster = false

    @Option(help: "With --cluster: positions in the QoS 0 stream.")
    var clusterMessages = 100_000

    @Option(help: "With --cluster: positions in the QoS 1 stream.")
    var clusterQ1Messages = 10_000

    @Option(help: "With --cluster: the instance counts on NATS, comma-separated.")
    var clusterPartitions = "1,2,4"

    func validate() throws {
        guard q1Messages <= 1_000_000, q0Messages > 0, devices > 0, fences >= 10, probes > 0 else {
            throw ValidationError("sizes must be positive (fences >= 10)")
        }
        if let only {
            for name in only.split(separator: ",") where BenchSettings.Phase(rawValue: String(name)) == nil {
                throw ValidationError("unknown phase \(name)")
            }
        }
        if let only, only.split(separator: ",").contains("soak"), only != "soak" {
            throw ValidationError("soak runs alone: --only soak")
        }
        guard soakMinutes > 0, soakInterval > 0, (0..<100).contains(soakChurn), soakForgetAfter > 0, soakRate.map({ $0 > 0 }) ?? true
        else {
            throw ValidationError("soak settings must be positive (churn a percentage below 100)")
        }
        guard scaleSteps.split(separator: ",").allSatisfy({ Int($0) != nil }) else {
            throw ValidationError("--scale-steps takes comma-separated numbers")
        }
        let partitions = clusterPartitions.split(separator: ",").compactMap { Int($0) }
        guard !partitions.isEmpty, partitions.count == clusterPartitions.split(separator: ",").count,
            partitions.allSatisfy({ (1...16).contains($0) }), clusterMessages > 0, clusterQ1Messages > 0
        else {
            throw ValidationError("--cluster-partitions takes comma-separated counts from 1 to 16; stream sizes must be positive")
        }
    }

    var settings: BenchSettings {
        var settings = BenchSettings()
        if let only { settings.phases = Set(only.split(separator: ",").compactMap { BenchSettings.Phase(rawValue: String($0)) }) }
        settings.q0Messages = q0Messages
        settings.q1Messages = q1Messages
        settings.devices = devices
        settings.fences = fences
        settings.debounce = debounce
        settings.latencySeconds = latencySeconds
        settings.latencyRate = latencyRate
        settings.probes = probes
        settings.scaleSteps = scaleSteps.split(separator: ",").compactMap { Int($0) }
        settings.scaleJitteredReports = max(0, scaleJitteredReports)
        settings.startupFences = startupFences
        settings.startupLimit = startupLimit
        settings.phaseLimit = phaseLimit
        settings.seed = seed
        settings.serviceExecutable = service
        settings.wrapper = wrap.map { $0.split(separator: " ").map(String.init) } ?? []
        settings.keepFiles = keepFiles
        settings.brokerConfig = brokerConfig
        settings.httpLoad = httpLoad
        settings.homeAssistant = homeAssistant
        settings.lateWindow = lateWindow

        settings.cluster = cluster
        settings.clusterMessages = clusterMessages
        settings.clusterQ1Messages = clusterQ1Messages
        settings.clusterPartitions = clusterPartitions.split(separator: ",").compactMap { Int($0) }

        settings.soak = SoakSettings(
            minutes: soakMinutes, rate: soakRate, interval: soakInterval, churnPercent: soakChurn, forgetAfter: soakForgetAfter)
        return settings
    }

    func run() async throws {
        let settings = settings
        // A soak is as long as it is asked to be, plus its ceiling, start-up and the clean stop.
        TimeLimit.arm(seconds: settings.phases == [.soak] ? max(timeLimit, settings.soak.minutes * 60 + 600) : timeLimit)
        if settings.cluster {
            let bench = try ClusterBench(settings: settings)
            do {
                try await bench.run()
            } catch {
                bench.progress("FAILED: \(error)")
                bench.shutdown()
                ClusterReport(measurements: bench.measurements, notes: bench.notes, settings: settings).print()
                throw ExitCode(1)
            }
            bench.shutdown()
            ClusterReport(measurements: bench.measurements, notes: bench.notes, settings: settings).print()
            return
        }
        let run = try BenchRun(settings: settings)
        // A soak prints its own figures as it goes (SoakPhase).
        let report = settings.phases != [.soak]
        do {
            try await run.run()
        } catch {
            run.progress("FAILED: \(error)")
            await run.shutdown()
            if report { Report(results: run.results, settings: settings).print() }
            throw ExitCode(1)
        }
        await run.shutdown()
        if report { Report(results: run.results, settings: settings).print() }
    }
}
