import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private NATS cluster on loopback, for `fleetfence cluster`, benchmarks and tests: three
/// `nats-server` nodes (routes between them, JetStream keeping MQTT's state in three copies, an
/// MQTT listener each, positions mapped onto P partitions), configured from
/// `Config/cluster/nats-node.conf.template` (docs/several-instances.md "Several instances").
///
/// Like `LocalMosquitto` it never outlives its owner: `stop()`, `deinit`, and a watchdog per
/// node if this process dies without either. Single nodes can be killed and started again, to
/// see instances and trucks fail over.
public final class LocalNATSCluster: Sendable {
    public struct Node: Sendable {
        /// `n1`, `n2`, ...: its `server_name`.
        public let name: String
        public let clientPort: Int
        public let clusterPort: Int
        public let mqttPort: Int
        /// `mqtt://127.0.0.1:PORT`
        public var mqttURL: String { "mqtt://127.0.0.1:\(mqttPort)" }
    }

    public let nodes: [Node]
    public let partitions: Int
    /// Each node's rendered config (`n1.conf`), log (`n1.log`) and JetStream store (`n1/`).
    public let workDirectory: String
    /// Every node's MQTT URL, in node order.
    public var mqttURLs: [String] { nodes.map(\.mqttURL) }
    /// The same, comma-separated: what `fleetfence serve --broker` and `fleetsim --broker` take.
    public var brokerList: String { mqttURLs.joined(separator: ",") }

    private let executable: String
    private let ownsWorkDirectory: Bool
    private let running: Mutex<[RunningBroker?]>

    /// Starts every node and returns once each accepts MQTT clients (its JetStream has a leader
    /// and MQTT's streams exist).
    ///
    /// - Parameters:
    ///   - partitions: P of the mapping `fleet/<device>/position` -> `fleet/<p>/<device>/position`.
    ///   - workDirectory: kept, with the JetStream stores, so that a later start finds sessions and
    ///     retained messages again; `nil`: a temporary directory removed with this object.
    ///   - template: another node template than `Config/cluster/nats-node.conf.template`.
    public static func start(
        partitions: Int = 4, nodeCount: Int = 3, workDirectory: String? = nil, template: String? = nil,
        readyTimeout: Duration = .seconds(30)
    ) throws(LocalBrokerError) -> LocalNATSCluster {
        guard partitions >= 1, nodeCount >= 1 else { throw .setupFailed(reason: "need at least one partition and one node") }
        let executable = try BrokerExecutable.natsServer()
        let text = try NATSNodeConfiguration.template(override: template)
        // A free port can be taken by someone else before a node binds it: try other ports.
        var lastError: LocalBrokerError?
        for _ in 0..<4 {
            let cluster = try LocalNATSCluster(
                executable: executable, ports: try distinctFreePorts(nodeCount * 3), partitions: partitions,
                workDirectory: workDirectory)
            do {
                try cluster.writeConfigurations(template: text)
                let logStarts = Dictionary(uniqueKeysWithValues: cluster.nodes.indices.map { ($0, cluster.logSize($0)) })
                for index in cluster.nodes.indices { try cluster.launch(index) }
                try cluster.waitUntilReady(cluster.nodes.indices, logStarts: logStarts, timeout: readyTimeout)
                return cluster
            } catch {
                cluster.stop()
                guard case let .exitedEarly(_, _, output) = error, output.lowercased().contains("address already in use") else {
                    throw error
                }
                lastError = error
            }
        }
        throw lastError ?? .noFreePort(reason: "gave up")
    }

    private init(executable: String, ports: [Int], partitions: Int, workDirectory: String?) throws(LocalBrokerError) {
        self.executable = executable
        self.partitions = partitions
        let count = ports.count / 3
        nodes = (0..<count).map { n in
            Node(name: "n\(n + 1)", clientPort: ports[3 * n], clusterPort: ports[3 * n + 1], mqttPort: ports[3 * n + 2])
        }
        if let workDirectory {
            do {
                try FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
            } catch {
                throw .setupFailed(reason: "cannot create \(workDirectory): \(error)")
            }
            self.workDirectory = URL(fileURLWithPath: workDirectory).standardizedFileURL.path
            ownsWorkDirectory = false
        } else {
            let template = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-nats-XXXXXX").path
            var buffer = Array(template.utf8CString)
            guard let created = mkdtemp(&buffer) else {
                throw .setupFailed(reason: "mkdtemp: \(String(cString: strerror(errno)))")
            }
            self.workDirectory = String(cString: created)
            ownsWorkDirectory = true
        }
        running = Mutex(Array(repeating: nil, count: count))
    }

    deinit {
        stop()
        if ownsWorkDirectory { try? FileManager.default.removeItem(atPath: workDirectory) }
    }

    public func configPath(_ node: Int) -> String { workDirectory + "/\(nodes[node].name).conf" }
    public func logPath(_ node: Int) -> String { workDirectory + "/\(nodes[node].name).log" }

    /// What node `node` (0-based) logged so far, all its runs.
    public func log(_ node: Int) -> String {
        (try? String(contentsOfFile: logPath(node), encoding: .utf8)) ?? ""
    }

    /// The node's process id, 0 while it is stopped.
    public func processID(_ node: Int) -> Int32 {
        running.withLock { $0[node]?.broker.pid ?? 0 }
    }

    public func isRunning(_ node: Int) -> Bool {
        running.withLock { $0[node]?.broker.isRunning ?? false }
    }

    /// The exit status of a node that ended by itself (or was killed from outside), `nil` while it
    /// runs or once stopped here.
    public func exitStatus(_ node: Int) -> Int32? {
        running.withLock { $0[node]?.broker.terminationStatus }
    }

    /// SIGTERM to every node, the last first, and waits (SIGKILL after 5 s). Idempotent.
    public func stop() {
        for index in nodes.indices.reversed() { stop(index) }
    }

    /// SIGTERM to one node: it leaves the cluster cleanly.
    public func stop(_ node: Int) {
        end(node, signal: SIGTERM)
    }

    /// SIGKILL: a node crash. The other two keep a majority: clients fail over to them.
    public func kill(_ node: Int) {
        end(node, signal: SIGKILL)
    }

    /// Starts a stopped or killed node again with the same ports and store, and returns once it
    /// accepts MQTT clients again.
    public func start(_ node: Int, readyTimeout: Duration = .seconds(30)) throws(LocalBrokerError) {
        let logStart = logSize(node)
        try launch(node)
        try waitUntilReady([node], logStarts: [node: logStart], timeout: readyTimeout)
    }

    private func logSize(_ node: Int) -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: logPath(node))[.size] as? NSNumber)?.int64Value ?? 0
    }

    private func end(_ node: Int, signal: Int32) {
        running.withLock { running in
            running[node]?.terminate(signal: signal)
            running[node] = nil
        }
    }

    private func writeConfigurations(template: String) throws(LocalBrokerError) {
        for (index, node) in nodes.enumerated() {
            let configuration = NATSNodeConfiguration(
                name: node.name, clientPort: node.clientPort, clusterPort: node.clusterPort, mqttPort: node.mqttPort,
                routePorts: nodes.map(\.clusterPort), partitions: partitions,
                storeDirectory: workDirectory + "/\(node.name)")
            do {
                try configuration.render(template: template).write(toFile: configPath(index), atomically: true, encoding: .utf8)
            } catch let error as LocalBrokerError {
                throw error
            } catch {
                throw .setupFailed(reason: "writing \(configPath(index)): \(error)")
            }
        }
    }

    /// Starts node `node` if it is not running (also after it was killed from outside); returns
    /// once its MQTT port accepts TCP.
    private func launch(_ node: Int) throws(LocalBrokerError) {
        let failure = running.withLock { running -> LocalBrokerError? in
            if let ended = running[node], !ended.broker.isRunning {
                ended.terminate(signal: SIGKILL)
                running[node] = nil
            }
            guard running[node] == nil else { return nil }
            do throws(LocalBrokerError) {
                running[node] = try RunningBroker.launch(
                    program: "nats-server \(nodes[node].name)", executable: executable, configPath: configPath(node),
                    logPath: logPath(node), port: nodes[node].mqttPort)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Until every node in `indices` accepts an MQTT CONNECT: the first MQTT client of a fresh
    /// cluster waits for JetStream's leaders and MQTT's streams, a few seconds.
    ///
    /// A CONNECT that comes before the node knows JetStream's metadata leader is held for 4 s and
    /// then refused, so each node's log is watched for that leader first (`logStarts`: where
    /// this run's lines begin).
    private func waitUntilReady(_ indices: some Collection<Int>, logStarts: [Int: Int64], timeout: Duration) throws(LocalBrokerError) {
        let deadline = ContinuousClock.now + timeout
        for index in indices {
            let node = nodes[index]
            let leaderDeadline = min(deadline, ContinuousClock.now + .seconds(10))
            while !knowsMetadataLeader(RunningBroker.logText(logPath(index), from: logStarts[index] ?? 0)),
                ContinuousClock.now < leaderDeadline, exitStatus(index) == nil {
                usleep(20_000)
            }
            while !MQTTHandshake.accepted(port: node.mqttPort, clientID: "fleetfence-probe-\(getpid())-\(node.name)", timeout: .seconds(5)) {
                if let status = exitStatus(index) {
                    throw .exitedEarly(program: "nats-server \(node.name)", status: status, output: String(log(index).suffix(4000)))
                }
                guard ContinuousClock.now < deadline else {
                    throw .notReady(program: "nats-server \(node.name) (MQTT)", port: node.mqttPort, output: String(log(index).suffix(4000)))
                }
                usleep(100_000)
            }
        }
    }

    /// nats-server 2.9 says "JetStream cluster new metadata leader: n2/fleetfence", or "Self is new
    /// JetStream cluster metadata leader" on the leader itself.
    private func knowsMetadataLeader(_ log: String) -> Bool {
        log.contains("new metadata leader") || log.contains("Self is new JetStream cluster metadata leader")
    }

    private static func distinctFreePorts(_ count: Int) throws(LocalBrokerError) -> [Int] {
        var ports: [Int] = []
        while ports.count < count {
            let port = try LoopbackPort.free()
            if !ports.contains(port) { ports.append(port) }
        }
        return ports
    }
}
