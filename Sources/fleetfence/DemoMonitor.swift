import FleetSimulator
import LocalBroker
import Synchronization

/// Watches the service and the broker while trucks drive. If either ends, there is nothing left
/// to demonstrate: the simulation is stopped without waiting and the reason kept for the user.
final class DemoMonitor: Sendable {
    private let failure = Mutex<String?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(service: ServiceProcess, broker: LocalMosquitto, simulation: Simulation) {
        let watching = Task { [weak self] in
            while !Task.isCancelled {
                var reason: String?
                if !service.isRunning {
                    reason = "the service exited while the trucks were driving (status \(service.exitStatus ?? -1)); its last lines:\n"
                        + service.logTail()
                } else if !broker.isRunning {
                    reason = "the demo's mosquitto exited while the trucks were driving; its log:\n" + broker.log
                }
                if let reason {
                    self?.failure.withLock { $0 = reason }
                    // Twice: stop publishing, and skip the wait for alerts that cannot come.
                    simulation.stop()
                    simulation.stop()
                    return
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        task.withLock { $0 = watching }
    }

    /// Why the run could not complete, if it could not.
    var failureReason: String? { failure.withLock { $0 } }

    func stop() {
        task.withLock { $0?.cancel() }
    }
}
