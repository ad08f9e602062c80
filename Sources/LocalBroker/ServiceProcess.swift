import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real `fleetfence serve` as a child process: the one launcher the demo, fleetbench and the
/// tests share. Configured by `Options` alone (see `ServeCommandLine`), and watched (see
/// `WatchedChild`): it never outlives its owner.
///
/// Readiness is each caller's own (tests: a live `online`; the demo: online and its fences;
/// fleetbench: times from its log), so `init` returns as soon as the process runs.
public final class ServiceProcess: Sendable {
    public let options: Options
    public let executable: String
    /// `nil`: ours.
    public let workingDirectory: String?
    /// The service's standard output and standard error.
    public let logPath: String
    public var processID: Int32 { child.pid }

    private let child: WatchedChild

    /// Writes `configFile` (empty: every setting is a flag) and starts `executable serve`.
    ///
    /// - Parameters:
    ///   - wrapper: words put before the executable, e.g. `valgrind --tool=callgrind`; run through
    ///     `/usr/bin/env`, so the first word is found on PATH.
    ///   - output: where standard output and error go instead of being appended to `logPath` (a
    ///     pipe whose reader keeps `logPath` itself).
    public init(
        executable: String, options: Options, configFile: String, logPath: String, workingDirectory: String? = nil,
        wrapper: [String] = [], output: Int32? = nil
    ) throws(LocalBrokerError) {
        self.options = options
        self.executable = executable
        self.workingDirectory = workingDirectory
        self.logPath = logPath
        let command = options.commandLine(configFile: configFile)
        do {
            try command.writeConfigFile()
        } catch {
            throw .launchFailed(executable: executable, reason: "cannot write its config file \(configFile): \(error)")
        }
        let program = wrapper.isEmpty ? executable : "/usr/bin/env"
        let arguments = wrapper.isEmpty ? command.arguments : wrapper + [executable] + command.arguments
        if let output {
            let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
            defer { close(null) }
            child = try WatchedChild(
                executable: program, arguments: arguments, environment: command.environment,
                workingDirectory: workingDirectory, stdin: null, stdout: output, stderr: output)
        } else {
            child = try WatchedChild(
                executable: program, arguments: arguments, environment: command.environment,
                workingDirectory: workingDirectory, logPath: logPath)
        }
    }

    /// The built `fleetfence` (see `FleetFenceExecutable`).
    public static func locateExecutable(override: String? = nil) throws(LocalBrokerError) -> String {
        try FleetFenceExecutable.locate(override: override)
    }

    // MARK: Control

    public var isRunning: Bool { child.isRunning }

    /// The exit code, or 128 + signal for a service ended by a signal; `nil` while it runs.
    public var exitStatus: Int32? { child.terminationStatus }

    /// SIGTERM, the service's clean stop (`offline` published, journal flushed), then SIGKILL after
    /// `grace`. Returns the exit status: 0 for a clean stop, 128 + 9 when it had to be killed.
    /// Idempotent.
    @discardableResult
    public func terminate(grace: Duration = .seconds(10)) -> Int32 {
        child.stop(with: SIGTERM, grace: grace)
    }

    /// The same without blocking a thread while the service takes its time.
    @discardableResult
    public func terminate(grace: Duration = .seconds(10)) async -> Int32 {
        await child.stop(with: SIGTERM, grace: grace)
    }

    /// SIGKILL: a crash, nothing flushed, the broker publishes the last will.
    @discardableResult
    public func kill() -> Int32 {
        child.stop(with: SIGKILL, grace: .seconds(10))
    }

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
    public func waitForExit(timeout: Duration) -> Bool {
        child.waitForExit(within: timeout)
    }

    public func waitForExit(timeout: Duration) async -> Bool {
        await child.waitForExit(within: timeout)
    }

    // MARK: Log

    /// What the service wrote to standard output and standard error so far.
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// The last `count` lines of the log, for a message about a failure.
    public func logTail(_ count: Int = 20) -> String {
        log.split(separator: "\n", omittingEmptySubsequences: false).suffix(count + 1)
            .joined(separator: "\n").trimmingCharacters(in: .newlines)
    }
}
