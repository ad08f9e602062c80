import Foundation
import LocalBroker

/// `fleetbench --cluster` (docs/several-instances.md "Several instances"): the same position streams, QoS 0 and
/// QoS 1, through one instance on mosquitto and through P = 1, 2 and 4 instances on a three-node
/// NATS cluster, one target after another, in one run. It prints positions/s, each instance's CPU
/// per position of its own partition (from /proc, as the single-instance phases), and the
/// brokers' CPU per message. On two cores the sum cannot grow; what it shows is whether an
/// instance's cost per position stays that of a single instance.
final class ClusterBench {
    let settings: BenchSettings
    let directory: String
    private(set) var measurements: [ClusterMeasurement] = []
    private(set) var notes: [String] = []
    private var target: ClusterTarget?

    init(settings: BenchSettings) throws {
        self.settings = settings
        directory = try makeScratchDirectory("fleetbench-cluster")
    }

    func progress(_ line: String) {
        printProgress(line)
    }

    func run() async throws {
        let executable = try ServiceProcess.locateExecutable(override: settings.serviceExecutable)
        let area = FleetArea()
        let most = settings.clusterPartitions.max() ?? 1
        progress("preparing \(settings.clusterMessages) + \(settings.clusterQ1Messages) positions for \(settings.devices) devices and \(settings.fences) fences")
        var fleet = Fleet(count: settings.devices, area: area, seed: settings.seed)
        // Every device once before the measured streams: a first sight publishes the device's
        // retained state, which on NATS costs a replicated JetStream write (docs/several-instances.md "Several
        // instances"); the streams then measure devices already known, as in steady operation.
        let warmUp = fleet.stream(messages: settings.devices)
        let markersQ0 = Fleet.partitionMarkers("bench-end-q0", partitions: most, debounce: settings.debounce)
        let markersQ1 = Fleet.partitionMarkers("bench-end-q1", partitions: most, debounce: settings.debounce)
        let streamQ0 = fleet.stream(messages: settings.clusterMessages, framedBy: markersQ0)
        let streamQ1 = fleet.stream(messages: settings.clusterQ1Messages, framedBy: markersQ1)
        let fencesPath = directory + "/fences.geojson"
        try FenceSet.generate(count: settings.fences, area: area, seed: settings.seed &+ 1).write(to: fencesPath)

        var targets: [(String, () throws -> ClusterTarget)] = [
            ("mosquitto", { try ClusterTarget.mosquitto(self.settings, executable: executable, fencesFile: fencesPath, directory: self.directory) })
        ]
        for partitions in settings.clusterPartitions {
            targets.append(("NATS P=\(partitions)", {
                try ClusterTarget.nats(
                    self.settings, partitions: partitions, executable: executable, fencesFile: fencesPath, directory: self.directory)
            }))
        }
        for (name, start) in targets {
            progress("starting \(name)")
            let target = try start()
            self.target = target
            try target.waitUntilReady(limit: settings.phaseLimit)
            try await warm(target, with: warmUp)
            try settle(target)
            for (stream, markers, qos) in [(streamQ0, markersQ0, Int32(0)), (streamQ1, markersQ1, Int32(1))] {
                // Markers of partitions this target does not have still go to one of its instances.
                // The stats lines come every second: let them catch up with the previous stream.
                Monotonic.sleep(nanoseconds: 1_200_000_000)
                let before = target.instances.map { $0.log.snapshot.positions }.reduce(0, +)
                do {
                    measurements.append(try await measure(target, stream: stream, markers: markers, qos: qos))
                } catch BenchError.timedOut(let reason) {
                    // What got through is a figure too: the rest of the run still measures.
                    let processed = target.instances.map { $0.log.snapshot.positions }.reduce(0, +) - before
                    notes.append(String(
                        format: "%@; the instances had processed %d of %d positions (%.0f/s)",
                        reason, processed, stream.count, Double(processed) / settings.phaseLimit))
                    progress(notes.last!)
                    break
                }
            }
            target.stop()
            self.target = nil
        }
    }

    /// Publishes `stream` at QoS 0 and waits until the instances counted all of it.
    private func warm(_ target: ClusterTarget, with stream: PositionStream) async throws {
        let publisher = try await StreamPublisher.connect(url: target.url, clientID: "fleetbench-cluster-warm-up")
        _ = publisher.burst(stream, qos: 0)
        await publisher.finish()
        let start = Monotonic.nanos()
        while target.instances.map({ $0.log.snapshot.positions }).reduce(0, +) < stream.count {
            for instance in target.instances { try instance.ensureRunning() }
            guard Monotonic.since(start) < settings.phaseLimit else {
                throw BenchError.timedOut("\(target.name): the warm-up round was not processed within \(settings.phaseLimit) s")
            }
            Monotonic.sleep(nanoseconds: 20_000_000)
        }
    }

    /// Until the brokers are nearly idle: the warm-up's first sights and each instance's fence
    /// registry are retained messages, which NATS stores in JetStream, in three copies, for a
    /// while after the instances have moved on; measured streams must not queue behind them.
    private func settle(_ target: ClusterTarget) throws {
        let start = Monotonic.nanos()
        var last = target.brokerCPUSeconds ?? 0
        while Monotonic.since(start) < settings.phaseLimit {
            Monotonic.sleep(nanoseconds: 500_000_000)
            let now = target.brokerCPUSeconds ?? 0
            defer { last = now }
            // Under 10% of one core over half a second, all nodes together.
            if now - last < 0.05 { return }
        }
        notes.append("\(target.name): the brokers were still busy \(settings.phaseLimit) s after the warm-up")
    }

    /// Stops what still runs and removes the run's files. Safe after a failure.
    func shutdown() {
        target?.stop()
        target = nil
        if settings.keepFiles {
            progress("files kept in \(directory)")
        } else {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }
}
