import ArgumentParser
import FleetFenceService
import FleetFenceSettings
import Foundation
import LocalBroker
import Logging
import UnixSignals

/// `fleetfence cluster`: several instances on a private three-node NATS cluster on loopback
/// (docs/several-instances.md "Several instances"), until Ctrl-C. What `Scripts/cluster` runs.
struct ClusterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cluster",
        abstract: "Run several instances on a private three-node NATS cluster on loopback, until Ctrl-C.",
        discussion: """
            Starts three nats-server nodes from Config/cluster/nats-node.conf.template (routes, JetStream, \
            an MQTT listener each, positions mapped onto P partitions) on free loopback ports, then P \
            instances of `fleetfence serve` (this executable): instance k is named p<k>, follows \
            fleet/<k>/+/position and lists every node. Once every instance said online it prints how to \
            watch the alerts and how to run fleetsim against the cluster. A node or instance that dies \
            is started again after 3 s. Ctrl-C or SIGTERM stops the instances (each says offline), then \
            the nodes; a temporary workspace is removed, one given with --workspace is kept (journals, \
            JetStream stores with sessions and retained messages, logs) for the next start.
            """)

    @Option(name: [.short, .long], help: "Partitions, and instances: one per partition")
    var partitions = 4
    @Option(help: "Fences file (default \(ServiceConfiguration.Defaults.fencesFile))")
    var fences: String?
    @Option(help: "Keep journals, JetStream stores and logs here (default: a temporary directory, removed at the end)")
    var workspace: String?
    @Option(help: "The instances' debounce_s, seconds (default: the service's)")
    var debounce: Double?
    @Option(name: .customLong("silent-confirm"), help: "The instances' silent_confirm_s, seconds (default: the service's)")
    var silentConfirm: Double?

    func validate() throws {
        guard (1...64).contains(partitions) else { throw ValidationError("--partitions must be 1 to 64") }
        if let debounce { guard debounce >= 0, debounce.isFinite else { throw ValidationError("--debounce must be 0 or more") } }
        if let silentConfirm { guard silentConfirm > 0, silentConfirm.isFinite else { throw ValidationError("--silent-confirm must be positive") } }
    }

    func run() async throws {
        // A closed stdout (`| head`) must not kill the command before it stops its children.
        signal(SIGPIPE, SIG_IGN)
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        let teardown = DemoTeardown()
        let outcome = await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                do {
                    try await self.serve(teardown: teardown)
                    return nil
                } catch is CancellationError {
                    return nil
                } catch {
                    ClusterOutput.note("\(error)")
                    return 1
                }
            }
            group.addTask {
                for await signal in signals { return 128 + signal.rawValue }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        ClusterOutput.note("stopping the instances and the nodes")
        teardown.run()
        if let outcome, outcome != 128 + SIGINT, outcome != 128 + SIGTERM { throw ExitCode(outcome) }
    }

    /// Starts everything, says how to use it, and supervises until cancelled.
    private func serve(teardown: DemoTeardown) async throws {
        let executable = try ServiceProcess.locateExecutable()
        let fencesFile = try DemoPaths.resolve(
            fences ?? ServiceConfiguration.Defaults.fencesFile, isDefault: fences == nil, what: "fences file")
        let (directory, temporary) = try Self.workspace(workspace)
        if temporary { teardown.add { try? FileManager.default.removeItem(atPath: directory) } }

        let cluster = try LocalNATSCluster.start(partitions: partitions, workDirectory: directory + "/nats")
        teardown.add { cluster.stop() }
        for (index, node) in cluster.nodes.enumerated() {
            ClusterOutput.line("node \(node.name): \(node.mqttURL) (pid \(cluster.processID(index))), log \(cluster.logPath(index))")
        }
        let prefix = ServiceConfiguration.Defaults.prefix
        let readiness = try await ClusterReadiness(brokerList: cluster.brokerList, prefix: prefix)
        let instances = (0..<partitions).map {
            ClusterInstance(
                partition: $0, brokerList: cluster.brokerList, fencesFile: fencesFile, workspace: directory,
                debounce: debounce, silentConfirm: silentConfirm)
        }
        let supervisor = ClusterSupervisor(cluster: cluster, executable: executable, instances: instances)
        teardown.add { supervisor.stopAll() }
        for index in instances.indices { try supervisor.start(index) }
        try await waitUntilOnline(instances, supervisor: supervisor, readiness: readiness)
        for (index, instance) in instances.enumerated() {
            ClusterOutput.line("instance \(instance.name): fleet/\(instance.partition)/+/position (pid "
                + "\(supervisor.process(index)?.processID ?? 0)), journal \(instance.options[.journalPath] ?? ""), log \(instance.logPath)")
        }
        printUsage(cluster, prefix: prefix, fencesFile: fencesFile, workspace: directory, temporary: temporary)
        await supervisor.watch(readiness: readiness)
        try Task.checkCancellation()
    }

    private func waitUntilOnline(
        _ instances: [ClusterInstance], supervisor: ClusterSupervisor, readiness: ClusterReadiness
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while let waiting = instances.first(where: { !readiness.isOnline($0.name) }) {
            for (index, instance) in instances.enumerated() where supervisor.process(index)?.isRunning == false {
                let process = supervisor.process(index)
                throw DemoError("instance \(instance.name) exited during start-up with status \(process?.exitStatus ?? -1); "
                    + "its last lines:\n" + (process?.logTail() ?? ""))
            }
            guard ContinuousClock.now < deadline else {
                throw DemoError("instance \(waiting.name) did not say online within 30 s; its log: \(waiting.logPath)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private func printUsage(_ cluster: LocalNATSCluster, prefix: String, fencesFile: String, workspace: String, temporary: Bool) {
        let port = cluster.nodes[0].mqttPort
        let fleetsim = Self.fleetsimPath()
        var simulate = "  \(fleetsim) --broker \(cluster.brokerList) --qos 1 --verify --fences \(fencesFile)"
        if let debounce { simulate += " --debounce \(debounce)" }
        if let silentConfirm { simulate += " --silent-confirm \(silentConfirm)" }
        ClusterOutput.line("""

            All \(partitions) instances online; devices are spread over them by the mapping \
            fleet/<device>/position -> fleet/<p>/<device>/position, p = FNV-1a-32(<device>) mod \(partitions).

            Watch the alerts (each names its instance) and the instances' status, from any node:
              mosquitto_sub -h 127.0.0.1 -p \(port) -t '\(prefix)/alerts/#' -v
              mosquitto_sub -h 127.0.0.1 -p \(port) -t '\(prefix)/status/+' -v
            Run the simulator against every node (QoS 1: positions outlive a node's loss):
            \(simulate)
            Try a fault: kill -9 a node's or an instance's pid; it is started again after \(ClusterSupervisor.pause).
            Files: \(workspace)\(temporary ? " (removed at the end)" : " (kept)"). Ctrl-C stops everything.
            """)
    }

    /// `fleetsim` next to this executable (Scripts/cluster builds both), else by name.
    private static func fleetsimPath() -> String {
        guard let own = try? ServiceProcess.locateExecutable() else { return "fleetsim" }
        let candidate = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("fleetsim").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else { return "fleetsim" }
        let here = FileManager.default.currentDirectoryPath + "/"
        return candidate.hasPrefix(here) ? String(candidate.dropFirst(here.count)) : candidate
    }

    /// The given directory (created, kept), or a fresh temporary one.
    private static func workspace(_ given: String?) throws -> (String, temporary: Bool) {
        if let given {
            let path = URL(fileURLWithPath: given).standardizedFileURL.path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return (path, false)
        }
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-cluster-\(getpid())-XXXXXX").path
        var buffer = Array(template.utf8CString)
        guard let created = mkdtemp(&buffer) else {
            throw DemoError("cannot create a temporary directory: \(String(cString: strerror(errno)))")
        }
        return (String(cString: created), true)
    }
}
