import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process that never outlives this one: mosquitto, `fleetfence serve`, a program a test
/// runs. Its owner stops it with `stop`; `deinit` kills what was not stopped; a `Watchdog` ends
/// its process group if this process dies without either.
public final class WatchedChild: Sendable {
    private let process: ChildProcess
    private let watchdog: Watchdog

    /// Starts `executable` (see `ChildProcess`: clean signals, own process group, only the three
    /// descriptors given) and its watchdog.
    public init(
        executable: String, arguments: [String], environment: [String: String]? = nil, workingDirectory: String? = nil,
        stdin: Int32, stdout: Int32, stderr: Int32
    ) throws(LocalBrokerError) {
        let process = try ChildProcess(
            executable: executable, arguments: arguments, environment: environment, workingDirectory: workingDirectory,
            stdin: stdin, stdout: stdout, stderr: stderr)
        do {
            watchdog = try Watchdog(guarding: process.pid)
        } catch {
            process.end(with: SIGKILL, grace: .zero)
            throw error
        }
        self.process = process
    }

    /// The same with nothing on standard input and standard output and error appended to `logPath`
    /// (created if need be): how the broker, the demo's service and the tests' service run.
    public convenience init(
        executable: String, arguments: [String], environment: [String: String]? = nil, workingDirectory: String? = nil,
        logPath: String
    ) throws(LocalBrokerError) {
        let log = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard log >= 0 else {
            throw .launchFailed(executable: executable, reason: "cannot open \(logPath): \(String(cString: strerror(errno)))")
        }
        defer { close(log) }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(null) }
        try self.init(
            executable: executable, arguments: arguments, environment: environment, workingDirectory: workingDirectory,
            stdin: null, stdout: log, stderr: log)
    }

    deinit {
        stop(with: SIGKILL, grace: .zero)
    }

    public var pid: pid_t { process.pid }

    /// Reaps the child if it has ended; `true` while it runs.
    public var isRunning: Bool { process.isRunning }

    /// The exit code, or 128 + signal for a child ended by a signal; `nil` while running.
    public var terminationStatus: Int32? { process.terminationStatus }

    /// Sends `signal` if the child still runs.
    public func send(_ signal: Int32) {
        process.send(signal)
    }

    /// `true` once the child has ended, `false` if it still runs after `timeout`.
    public func waitForExit(within timeout: Duration) -> Bool {
        process.waitForExit(within: timeout)
    }

    /// The same without blocking a thread, for callers on Swift concurrency's few threads.
    public func waitForExit(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Sends `signal`, SIGKILL if the child still runs after `grace`; once it has ended, lets
    /// the watchdog go. Returns the exit status (-1 if it could not be had). Idempotent.
    ///
    /// The watchdog stays until the child has ended, so that our death during the grace still
    /// ends it.
    @discardableResult
    public func stop(with signal: Int32 = SIGTERM, grace: Duration) -> Int32 {
        process.end(with: signal, grace: grace)
        watchdog.dismiss()
        return process.terminationStatus ?? -1
    }

    /// The same without blocking a thread while the child takes its time.
    @discardableResult
    public func stop(with signal: Int32 = SIGTERM, grace: Duration) async -> Int32 {
        send(signal)
        if !(await waitForExit(within: grace)) {
            send(SIGKILL)
            _ = await waitForExit(within: .seconds(5))
        }
        watchdog.dismiss()
        return process.terminationStatus ?? -1
    }
}
