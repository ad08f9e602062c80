import Dispatch
import Foundation
import LocalBroker
import Synchronization

/// Keeps `fleetfence cluster` whole while it runs, as a supervisor (systemd, Kubernetes) keeps a
/// real deployment: a node or instance that dies (a `kill -9` to try a fault, docs/several-instances.md "Several
/// instances") is started again after a pause, and says so.
final class ClusterSupervisor: Sendable {
    static let pause: Duration = .seconds(3)

    let cluster: LocalNATSCluster
    let executable: String
    let instances: [ClusterInstance]
    private let running: Mutex<[ServiceProcess?]>
    private let stopped = Atomic(false)

    init(cluster: LocalNATSCluster, executable: String, instances: [ClusterInstance]) {
        self.cluster = cluster
        self.executable = executable
        self.instances = instances
        running = Mutex(Array(repeating: nil, count: instances.count))
    }

    /// Starts instance `index` (again).
    func start(_ index: Int) throws(LocalBrokerError) {
        let process = try instances[index].start(executable: executable)
        running.withLock { $0[index] = process }
    }

    func process(_ index: Int) -> ServiceProcess? { running.withLock { $0[index] } }

    /// Checks every second until cancelled; returns at once after `stopAll()`.
    func watch(readiness: ClusterReadiness) async {
        var deadSince: [String: ContinuousClock.Instant] = [:]
        while !Task.isCancelled, !stopped.load(ordering: .acquiring) {
            for node in cluster.nodes.indices where !cluster.isRunning(node) {
                let name = cluster.nodes[node].name
                guard let since = deadSince[name] else {
                    ClusterOutput.note("node \(name) ended (status \(cluster.exitStatus(node).map(String.init) ?? "?")); starting it again in \(Self.pause)")
                    deadSince[name] = .now
                    continue
                }
                guard ContinuousClock.now - since >= Self.pause, !stopped.load(ordering: .acquiring) else { continue }
                do {
                    try await Self.offThread { [cluster] in try cluster.start(node) }
                    ClusterOutput.note("node \(name) is back (pid \(cluster.processID(node)))")
                    deadSince[name] = nil
                } catch {
                    ClusterOutput.note("node \(name) did not start (\(Self.firstLine(error))); see \(cluster.logPath(node))")
                    deadSince[name] = .now
                }
            }
            for index in instances.indices {
                guard let process = process(index), !process.isRunning else { continue }
                let name = instances[index].name
                guard let since = deadSince[name] else {
                    ClusterOutput.note("instance \(name) ended (status \(process.exitStatus.map(String.init) ?? "?")); starting it again in \(Self.pause)")
                    readiness.forget(name)
                    deadSince[name] = .now
                    continue
                }
                guard ContinuousClock.now - since >= Self.pause, !stopped.load(ordering: .acquiring) else { continue }
                do {
                    try start(index)
                    ClusterOutput.note("instance \(name) started again (pid \(self.process(index)?.processID ?? 0)); its log: \(instances[index].logPath)")
                } catch {
                    ClusterOutput.note("instance \(name) did not start (\(Self.firstLine(error)))")
                }
                deadSince[name] = nil
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private static func firstLine(_ error: any Error) -> String {
        String("\(error)".split(separator: "\n").first ?? "")
    }

    /// SIGTERM to every instance (each says `offline` and flushes its journal), then the nodes.
    /// Idempotent.
    func stopAll() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let processes = running.withLock { $0 }
        for process in processes.compactMap({ $0 }) { process.signal(SIGTERM) }
        for process in processes.compactMap({ $0 }) { process.terminate(grace: .seconds(10)) }
        cluster.stop()
    }

    /// A node's start waits for it in a loop: on a thread of its own, not one of Swift
    /// concurrency's few.
    static func offThread(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// `fleetfence cluster`'s lines: instructions on standard output, events on standard error.
enum ClusterOutput {
    static func line(_ text: String) { DemoOutput.line(text) }
    static func note(_ text: String) { DemoOutput.note("fleetfence cluster: " + text) }
}
