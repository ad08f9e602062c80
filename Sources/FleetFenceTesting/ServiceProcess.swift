import FleetFenceSettings
import Foundation
import LocalBroker
import MQTT

extension ServiceProcess {
    /// Launches `fleetfence serve` (see LocalBroker's `ServiceProcess`) in `workingDirectory` and
    /// returns once it published `online` on its status topic (`<prefix>/status`, or
    /// `<prefix>/status/<instance>`; a live message, not a retained one left by an earlier run). Throws, with the service's log, when it exits or stays silent for
    /// `readyTimeout`.
    ///
    /// Each start has its own log and config file, so that a restarted service's log is kept
    /// apart. Stats come every second unless `options` say otherwise: tests wait for its lines.
    public static func start(
        _ options: Options, workingDirectory: String, readyTimeout: Duration = .seconds(20)
    ) async throws -> ServiceProcess {
        var options = options
        options[.statsInterval] = options[.statsInterval] ?? "1"
        options[.logLevel] = options[.logLevel] ?? "info"
        let executable = try locateExecutable()
        let statusTopic = options.statusTopic
        let watcher = try await MessageCollector.start(url: options.value(.brokerURL) ?? "", filters: [statusTopic])
        let name = workingDirectory + "/fleetfence-\(UUID().uuidString.prefix(8))"
        let service: ServiceProcess
        do {
            service = try ServiceProcess(
                executable: executable, options: options, configFile: name + ".yaml", logPath: name + ".log",
                workingDirectory: workingDirectory)
        } catch {
            await watcher.stop()
            throw error
        }
        let deadline = ContinuousClock.now + readyTimeout
        while true {
            // Retained messages arrive flagged; the service's own publish to a subscriber that was
            // already there arrives unflagged.
            if watcher.collected.contains(where: { $0.topic == statusTopic && !$0.retain && $0.text == "online" }) {
                await watcher.stop()
                return service
            }
            if !service.isRunning {
                await watcher.stop()
                let status = service.exitStatus.map(String.init) ?? "?"
                throw TestSupportError("fleetfence serve exited during start-up with status \(status):\n\(service.log)")
            }
            if ContinuousClock.now >= deadline {
                await watcher.stop()
                _ = await service.kill()
                throw TestSupportError("fleetfence serve did not publish online within \(readyTimeout):\n\(service.log)")
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
    }
}
