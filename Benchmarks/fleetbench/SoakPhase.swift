import Foundation
import FleetFenceSettings
import LocalBroker
import MQTT

/// The soak (`--only soak`, `Scripts/soak`; docs/performance.md "Soak"): the release service under steady load
/// for a long time, to see what drifts. A private mosquitto with the shipped limits, the broker's
/// ceiling measured quickly, then half of it as positions of a churning fleet that crosses fences,
/// beside a subscriber that stalled and a slow `/api/stream` reader; a line of figures a minute, and
/// the trends at the end.
extension BenchRun {
    func soak() async throws {
        let soak = settings.soak
        let area = FleetArea()
        let broker = try LocalMosquitto.start(extraConfig: try soakBrokerConfig())
        self.broker = broker
        progress("broker on \(broker.url), files in \(directory)")

        let rate: Double
        if let given = soak.rate {
            rate = given
        } else {
            var fleet = Fleet(count: settings.devices, area: area, seed: settings.seed)
            let ceiling = try await measureCeiling(fleet.stream(messages: 200_000), qos: 0)
            results.ceilingQoS0 = ceiling
            rate = ceiling.rate / 2
        }
        let devices = max(1, Int((rate * soak.interval).rounded()))

        let fences = FenceSet.generate(count: settings.fences, area: area, seed: settings.seed &+ 1)
        let fencesPath = directory + "/fences.geojson"
        try fences.write(to: fencesPath)
        let executable = try ServiceProcess.locateExecutable(override: settings.serviceExecutable)
        var options = ServiceProcess.Options([
            .brokerURL: broker.url, .fencesFile: fencesPath, .journalPath: directory + "/soak.db", .clientID: "fleetbench-soak",
            .statsInterval: "1", .logLevel: "info",
        ])
        options.set(.forgetAfter, soak.forgetAfter)
        let parts = SoakParts()
        soakParts = parts
        // Only the probes' alerts: the fleet's thousands a second would cost this process a core.
        observer = try await Observer.start(
            url: broker.url, prefixes: ["fleetfence"], alertFilters: ["fleetfence/alerts/+/\(FenceSet.marker.id)/enter"])
        let service = try BenchService(
            executable: executable, options: options, configFile: directory + "/soak.yaml", wrapper: settings.wrapper,
            logPath: directory + "/soak.log")
        self.service = service
        let startup = try waitForStartup(service, statusTopic: "fleetfence/status", fences: fences.count + 1, limit: settings.phaseLimit)
        guard startup.readySeconds != nil, let port = service.log.snapshot.httpPort else {
            throw BenchError.timedOut("service not ready (fences loaded, HTTP port) within \(settings.phaseLimit) s")
        }

        try await StalledSubscriber.leave(url: broker.url, prefix: "fleetfence")
        parts.stats = try await BrokerStats.start(url: broker.url)
        parts.reader = SlowStreamReader(port: port)
        let client = try await BenchClients.connect(url: broker.url, clientID: "fleetbench-soak-publisher")
        parts.publisher = client
        progress(String(
            format: "soak: %.0f positions/s from %d devices (one every %g s), %g%% of them replaced a minute, forgotten after %g s; %d fences; %.0f minutes",
            rate, devices, soak.interval, soak.churnPercent, soak.forgetAfter, fences.count, soak.minutes))
        let load = SoakLoad(
            client: client, devices: devices, area: area, seed: settings.seed &+ 2, rate: rate, churnPercent: soak.churnPercent,
            debounce: 20)
        parts.load = load

        let minutes = try await sampleMinutes(of: load, service: service, broker: broker, parts: parts)
        await parts.stop()
        soakParts = nil
        let summary = SoakSummary(minutes: minutes, warmUpMinutes: Int((soak.forgetAfter / 60).rounded(.up)) + 2)
        if load.lateSeconds.load(ordering: .relaxed) > 0 || load.dropped.load(ordering: .relaxed) > 0 {
            results.notes.append(
                "the load started \(load.lateSeconds.load(ordering: .relaxed)) seconds late and its client dropped \(load.dropped.load(ordering: .relaxed)) positions")
        }
        print(summary.lines.joined(separator: "\n"))
        for note in results.notes { print("note: \(note)") }
        print(summary.resultLine)
    }

    /// The shipped broker's limits (Config/mosquitto.conf, read from the source tree), without its
    /// persistence: saving the stalled subscriber's queue of up to a million messages every 10 s
    /// would measure the disk, not the service.
    private func soakBrokerConfig() throws -> String {
        let config = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Config/mosquitto.conf").path
        let persistence: Set<String> = ["persistence", "persistence_file", "autosave_interval", "autosave_on_changes"]
        let lines = try ShippedBrokerSettings(contentsOf: config).lines.filter { line in
            !persistence.contains(String(line.prefix { $0 != " " }))
        }
        return (lines + settings.brokerConfig).joined(separator: "\n")
    }

    /// A line a minute for `settings.soak.minutes` minutes.
    private func sampleMinutes(of load: SoakLoad, service: BenchService, broker: LocalMosquitto, parts: SoakParts) async throws
        -> [SoakMinute]
    {
        let start = Monotonic.nanos()
        let count = max(1, Int(settings.soak.minutes.rounded()))
        var previous = (log: service.log.snapshot, published: 0, drops: 0)
        var minutes: [SoakMinute] = []
        print(SoakMinute.header)
        for number in 1...count {
            let end = start + UInt64(number) * 60_000_000_000
            while Monotonic.nanos() < end {
                try service.ensureRunning()
                try await Task.sleep(for: .milliseconds(250))
            }
            let log = service.log.snapshot
            var minute = SoakMinute()
            minute.minute = number
            // Until the load starts, the service writes no stats line.
            let seconds = Monotonic.seconds(from: max(previous.log.lastStatsNanos, start), to: log.lastStatsNanos)
            if seconds > 0 {
                minute.positionsPerSecond = Double(log.positions - previous.log.positions) / seconds
                minute.alertsPerSecond = Double(log.alerts - previous.log.alerts) / seconds
            }
            let published = load.published.load(ordering: .relaxed)
            minute.publishedPerSecond = Double(published - previous.published) / 60
            minute.devices = log.devices
            minute.serviceRSS = service.residentBytes
            minute.brokerRSS = ProcMemory.residentBytes(pid: broker.processID)
            minute.journalBytes = ["", "-wal"].reduce(0) { total, suffix in
                total + ((try? FileManager.default.attributesOfItem(atPath: directory + "/soak.db" + suffix)[.size] as? Int) ?? 0)
            }
            // The probes confirmed from 5 s before the last minute's end to 5 s before this one's:
            // each counted once, its alert given 5 s to come.
            let lag: UInt64 = 5_000_000_000
            let window = (end - 60_000_000_000 > start ? end - 60_000_000_000 - lag : 0)..<(end - lag)
            let probes = load.probes(confirmedIn: window)
            let arrivals = probes.map { observer?.firstAlert(of: $0.device) }
            let latency = LatencyLoad.figures(published: probes.map(\.confirmedNanos), arrivals: arrivals)
            if settings.keepFiles { appendProbeDelays(probes, arrivals: arrivals) }
            minute.probes = probes.count
            minute.probeAlerts = latency.alerts
            minute.delayP50 = latency.p50Milliseconds
            minute.delayP99 = latency.p99Milliseconds
            minute.brokerMessages = parts.stats?.value(BrokerStats.storedMessages)
            let drops = parts.reader?.disconnects.load(ordering: .relaxed) ?? 0
            minute.streamDrops = drops - previous.drops
            previous = (log, published, drops)
            minutes.append(minute)
            print(minute.line)
        }
        return minutes
    }

    /// `soak-probes.csv` in the run's directory (`--keep-files`): each probe's wall-clock time of
    /// confirming, to the millisecond, beside its alert's delay, so that a slow one can be set
    /// beside the service's log of that second.
    private func appendProbeDelays(_ probes: [SoakLoad.Probe], arrivals: [UInt64?]) {
        let path = directory + "/soak-probes.csv"
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: Data("device,confirmed_unix_s,delay_ms\n".utf8))
        }
        let (nowWall, nowNanos) = (Date().timeIntervalSince1970, Monotonic.nanos())
        var text = ""
        for (probe, arrival) in zip(probes, arrivals) {
            let confirmed = nowWall - Double(nowNanos - probe.confirmedNanos) / 1e9
            let delay = arrival.map { String(format: "%.3f", Double(Int64($0) - Int64(probe.confirmedNanos)) / 1e6) } ?? ""
            text += "\(probe.device)," + String(format: "%.3f", confirmed) + ",\(delay)\n"
        }
        guard let file = FileHandle(forWritingAtPath: path) else { return }
        defer { try? file.close() }
        _ = try? file.seekToEnd()
        file.write(Data(text.utf8))
    }

    /// Whole lines at once, as they come: the soak is watched while it runs.
    private func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}

/// What a soak starts besides the broker and the service, stopped by `BenchRun.shutdown()` too.
final class SoakParts {
    var load: SoakLoad?
    var reader: SlowStreamReader?
    var stats: BrokerStats?
    var publisher: MQTTClient?

    func stop() async {
        await load?.stop()
        load = nil
        await reader?.stop()
        reader = nil
        await stats?.stop()
        stats = nil
        await publisher?.disconnect()
        publisher = nil
    }
}
