import Foundation
import LocalBroker
import MQTT

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real `fleetfence serve` as a child process, for end-to-end tests: real signals, a real
/// broker, a real journal.
///
/// `start` returns once the service said `online` on its status topic. The service is configured
/// by `Options` alone (see `ServeCommandLine`), and never outlives its owner: `terminate()`/`kill()`,
/// `deinit`, and — if the test process dies without either — LocalBroker's `WatchedChild` watchdog.
public final class ServiceProcess: Sendable {
    public let options: Options
    public let executable: String
    public let workingDirectory: String
    /// Standard output and standard error of the service.
    public let logPath: String
    public var processID: Int32 { child.pid }

    private let child: WatchedChild

    /// Launches `fleetfence serve` in `workingDirectory` and returns once it published `online`
    /// on `<prefix>/status` (a live message, not a retained one left by an earlier run).
    /// Throws, with the service's log, when it exits or stays silent for `readyTimeout`.
    public static func start(
        _ options: Options, workingDirectory: String, readyTimeout: Duration = .seconds(20)
    ) async throws -> ServiceProcess {
        let executable = try locateExecutable()
        let statusTopic = options.effectivePrefix + "/status"
        let watcher = try await MessageCollector.start(url: options.brokerURL, filters: [statusTopic])
        let service: ServiceProcess
        do {
            service = try ServiceProcess(options: options, executable: executable, workingDirectory: workingDirectory)
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

    /// Each start its own log and config file, so that a restarted service's log is kept apart.
    private init(options: Options, executable: String, workingDirectory: String) throws {
        self.options = options
        self.executable = executable
        self.workingDirectory = workingDirectory
        let name = workingDirectory + "/fleetfence-\(UUID().uuidString.prefix(8))"
        logPath = name + ".log"
        let command = options.commandLine(configFile: name + ".yaml")
        try command.writeConfigFile()
        child = try WatchedChild(
            executable: executable, arguments: command.arguments, environment: command.environment,
            workingDirectory: workingDirectory, logPath: logPath)
    }

    // MARK: Control

    public var isRunning: Bool { child.isRunning }

    /// The exit code, or 128 + signal for a service ended by a signal; `nil` while it runs.
    public var exitStatus: Int32? { child.terminationStatus }

    /// SIGTERM, then waits up to `grace` for the exit (SIGKILL after that). Returns the exit
    /// status: 0 for a clean stop, 128 + 9 when it had to be killed.
    @discardableResult
    public func terminate(grace: Duration = .seconds(10)) async -> Int32 {
        await child.stop(with: SIGTERM, grace: grace)
    }

    /// SIGKILL: a crash, nothing flushed, the broker publishes the last will.
    @discardableResult
    public func kill() async -> Int32 {
        await child.stop(with: SIGKILL, grace: .seconds(10))
    }

    /// SIGHUP: reload the fences file.
    public func hangup() {
        signal(SIGHUP)
    }

    /// Sends `signal` if the service still runs.
    public func signal(_ signal: Int32) {
        child.send(signal)
    }

    /// Waits up to `timeout` for the service to end on its own; `true` if it did.
    public func waitForExit(timeout: Duration) async -> Bool {
        await child.waitForExit(within: timeout)
    }

    /// What the service wrote to standard output and standard error so far.
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }
}
