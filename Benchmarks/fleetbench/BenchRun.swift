import Foundation
import LocalBroker

/// One run: a private broker, the streams and fences, the phases in order, and a clean end.
final class BenchRun {
    let settings: BenchSettings
    let directory: String
    var broker: LocalMosquitto?
    var observer: Observer?
    private(set) var publisher: StreamPublisher?
    /// The running service, stopped by `shutdown()` whatever happened.
    var service: BenchService?
    private(set) var launcher: BenchServices!
    /// The soak's own clients and threads (`SoakPhase`).
    var soakParts: SoakParts?
    var results = BenchResults()
    var brokerURL: String { broker?.url ?? "" }
    /// The private broker's CPU time so far (user + system).
    var brokerCPUSeconds: Double? {
        broker.flatMap { ProcCPU.seconds(pid: $0.processID) }
    }

    init(settings: BenchSettings) throws {
        self.settings = settings
        directory = try makeScratchDirectory("fleetbench")
    }

    func progress(_ line: String) {
        printProgress(line)
    }

    func run() async throws {
        if settings.phases == [.soak] {
            try await soak()
            return
        }
        let area = FleetArea()
        let executable = try ServiceProcess.locateExecutable(override: settings.serviceExecutable)

        progress("preparing \(settings.q0Messages + settings.q1Messages) positions for \(settings.devices) devices and \(settings.fences) fences")
        var fleet = Fleet(count: settings.devices, area: area, seed: settings.seed)
        let streamQ0 = fleet.stream(messages: settings.q0Messages, framedBy: .endMarker("bench-end-q0", debounce: settings.debounce))
        let streamQ1 = fleet.stream(messages: settings.q1Messages, framedBy: .endMarker("bench-end-q1", debounce: settings.debounce))
        results.payloadBytes = streamQ0.averagePayloadBytes
        let fences = FenceSet.generate(count: settings.fences, area: area, seed: settings.seed &+ 1)
        let fencesPath = directory + "/fences.geojson"
        try fences.write(to: fencesPath)

        // QoS 0 to a slow subscriber is dropped beyond max_queued_messages, QoS 1 window 20 by default.
        let broker = try LocalMosquitto.start(extraConfig: """
            max_queued_messages 2000000
            max_inflight_messages 1000
            max_queued_bytes 0
            """ + settings.brokerConfig.map { "\n" + $0 }.joined())
        self.broker = broker
        launcher = BenchServices(
            executable: executable, wrapper: settings.wrapper, brokerURL: broker.url, directory: directory,
            debounce: settings.debounce, httpLoad: settings.httpLoad, homeAssistant: settings.homeAssistant,
            lateWindow: settings.lateWindow)
        progress("broker on \(broker.url), files in \(directory), service \(executable)"
            + (settings.httpLoad ? ", HTTP readers on" : "") + (settings.homeAssistant ? ", Home Assistant on" : ""))

        if settings.phases.contains(.ceiling) {
            results.ceilingQoS0 = try await measureCeiling(streamQ0, qos: 0)
            results.ceilingQoS1 = try await measureCeiling(streamQ1, qos: 1)
        }

        observer = try await Observer.start(url: broker.url, prefixes: ["fleetfence", "bench-startup"])
        publisher = try await StreamPublisher.connect(url: broker.url)

        if settings.needsService {
            let service = try launcher.start(
                name: "service", fencesFile: fencesPath, clientID: "fleetbench-service", http: settings.phases.contains(.scale))
            self.service = service
            progress("fleetfence serve started, pid \(service.pid)")
            let startup = try waitForStartup(
                service, statusTopic: "fleetfence/status", fences: fences.count + 1, limit: settings.phaseLimit)
            results.startupRun = startup
            guard startup.readySeconds != nil else {
                throw BenchError.timedOut("service did not load its \(fences.count) fences within \(settings.phaseLimit) s")
            }
            progress(String(format: "service ready after %.2f s", startup.readySeconds ?? 0))

            if settings.phases.contains(.throughput) {
                results.serviceQoS0 = try await measureService(service, stream: streamQ0, marker: "bench-end-q0", qos: 0)
                results.serviceQoS1 = try await measureService(service, stream: streamQ1, marker: "bench-end-q1", qos: 1)
            }
            if settings.phases.contains(.latency) {
                let rate = results.ceilingQoS0.map { $0.rate / 2 } ?? settings.latencyRate
                if !settings.phases.contains(.throughput) { try warmUp(service, fleet: &fleet) }
                let load = LatencyLoad(fleet: &fleet, fences: fences, rate: rate, settings: settings, probePrefix: "probe")
                results.latency = try await measureLatency(service, load: load, rate: rate, probePrefix: "probe")
                results.brokerPath = try await measureBrokerPath(load, rate: rate, name: "path")
                // Where the service cannot keep up with half the ceiling, the figure above is queueing;
                // at half the service's own rate it shows what an alert costs when the service is not saturated.
                if let own = results.serviceQoS0?.rate, own < rate * 1.5 {
                    let load = LatencyLoad(fleet: &fleet, fences: fences, rate: own / 2, settings: settings, probePrefix: "probe-b")
                    results.latencyUnsaturated = try await measureLatency(service, load: load, rate: own / 2, probePrefix: "probe-b")
                    results.brokerPathUnsaturated = try await measureBrokerPath(load, rate: own / 2, name: "path-b")
                }
            }
            if settings.phases.contains(.scale) {
                results.scale = try await measureScale(service, steps: settings.scaleSteps, area: area)
            }
            results.stopSeconds = service.stop()
            if let code = service.exitCode, code != 0 {
                results.notes.append("fleetfence exited with status \(code) after SIGTERM")
            }
            self.service = nil
        }

        if settings.phases.contains(.startup) {
            (results.startupLarge, results.restartLarge) = try measureLargeStartup(area: area)
        }
    }

    /// Stops whatever is still running and removes the run's files. Safe after a failure.
    func shutdown() async {
        await soakParts?.stop()
        soakParts = nil
        service?.stop(grace: 5)
        service = nil
        await publisher?.finish()
        publisher = nil
        await observer?.stop()
        observer = nil
        broker?.stop()
        broker = nil
        if settings.keepFiles {
            progress("files kept in \(directory)")
        } else {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}
