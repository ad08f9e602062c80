import Foundation
import FleetFenceSettings
import LocalBroker

/// Where instances run for `fleetbench --cluster`: one instance on a private mosquitto, or P
/// instances on a private three-node NATS cluster, each following its partition (docs/several-instances.md
/// "Several instances"). Started with the one launcher, `ServiceProcess`, via `BenchService`.
final class ClusterTarget {
    let name: String
    let instances: [BenchService]
    /// Where the benchmark's publisher and observer connect.
    let url: String
    private let brokerProcessIDs: () -> [Int32]
    private let stopBrokers: () -> Void
    private var stopped = false

    var partitions: Int { instances.count }

    /// The brokers' CPU time so far, all nodes together.
    var brokerCPUSeconds: Double? {
        let times = brokerProcessIDs().map { ProcCPU.seconds(pid: $0) }
        guard !times.isEmpty, times.allSatisfy({ $0 != nil }) else { return nil }
        return times.compactMap { $0 }.reduce(0, +)
    }

    private init(name: String, instances: [BenchService], url: String, brokers: @escaping () -> [Int32], stop: @escaping () -> Void) {
        self.name = name
        self.instances = instances
        self.url = url
        brokerProcessIDs = brokers
        stopBrokers = stop
    }

    /// One instance, as the single-broker deployment runs (positions `fleet/+/position`).
    static func mosquitto(_ settings: BenchSettings, executable: String, fencesFile: String, directory: String) throws -> ClusterTarget {
        let broker = try LocalMosquitto.start(extraConfig: """
            max_queued_messages 2000000
            max_inflight_messages 1000
            max_queued_bytes 0
            """)
        do {
            let service = try start(
                settings, executable: executable, name: "single", brokerURL: broker.url, positions: "fleet/+/position",
                instance: nil, fencesFile: fencesFile, directory: directory + "/mosquitto")
            return ClusterTarget(
                name: "mosquitto, 1 instance", instances: [service], url: broker.url, brokers: { [broker.processID] },
                stop: { broker.stop() })
        } catch {
            broker.stop()
            throw error
        }
    }

    /// P instances on three NATS nodes. Instance k lists the nodes starting at node k mod 3, so
    /// that the instances spread over the nodes and positions cross routes as in a deployment.
    static func nats(_ settings: BenchSettings, partitions: Int, executable: String, fencesFile: String, directory: String) throws -> ClusterTarget {
        // In the run's directory, so that --keep-files keeps the nodes' logs too.
        let cluster = try LocalNATSCluster.start(partitions: partitions, workDirectory: directory + "/nats-\(partitions)/nodes")
        var services: [BenchService] = []
        do {
            for k in 0..<partitions {
                let urls = cluster.mqttURLs
                let rotated = Array(urls[(k % urls.count)...] + urls[..<(k % urls.count)])
                services.append(try start(
                    settings, executable: executable, name: "p\(k)", brokerURL: rotated.joined(separator: ","),
                    positions: "fleet/\(k)/+/position", instance: "p\(k)", fencesFile: fencesFile,
                    directory: directory + "/nats-\(partitions)"))
            }
        } catch {
            for service in services { service.stop(grace: 5) }
            cluster.stop()
            throw error
        }
        return ClusterTarget(
            name: "NATS, \(partitions) instance\(partitions == 1 ? "" : "s")", instances: services, url: cluster.mqttURLs[0],
            brokers: { cluster.nodes.indices.map { cluster.processID($0) } }, stop: { cluster.stop() })
    }

    private static func start(
        _ settings: BenchSettings, executable: String, name: String, brokerURL: String, positions: String,
        instance: String?, fencesFile: String, directory: String
    ) throws -> BenchService {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var options = ServiceProcess.Options([
            .brokerURL: brokerURL, .fencesFile: fencesFile, .journalPath: directory + "/\(name).db",
            .clientID: "fleetbench-\(name)", .silentConfirm: "3600", .positionTopics: positions,
            .statsInterval: "1", .logLevel: "info", .httpListen: "",
        ])
        options.set(.debounce, settings.debounce)
        options[.instanceName] = instance
        return try BenchService(
            executable: executable, options: options, configFile: directory + "/\(name).yaml", wrapper: settings.wrapper,
            logPath: directory + "/\(name).log")
    }

    /// Until every instance has its fences in effect.
    func waitUntilReady(limit: Double) throws {
        let start = Monotonic.nanos()
        while instances.contains(where: { $0.log.snapshot.fencesLoadedNanos == nil }) {
            for instance in instances { try instance.ensureRunning() }
            guard Monotonic.since(start) < limit else {
                throw BenchError.timedOut("\(name): instances not ready within \(limit) s")
            }
            Monotonic.sleep(nanoseconds: 10_000_000)
        }
    }

    /// The instances (SIGTERM, their clean stop), then the brokers. Idempotent.
    func stop() {
        guard !stopped else { return }
        stopped = true
        for instance in instances { instance.process.signal(SIGTERM) }
        for instance in instances { instance.stop(grace: 20) }
        stopBrokers()
    }

    deinit {
        stop()
    }
}
