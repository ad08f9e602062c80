import Foundation
import GeofenceEngine
import LocalBroker

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real `fleetfence serve`, this same executable, as a child of the demo.
///
/// It never outlives the demo: `stop()` on every way out, and a watchdog shell for the ways
/// out that run no code (a crash, SIGKILL): it holds the read end of a pipe only the demo
/// writes to, and when the pipe closes without "done" it stops the service.
final class DemoServiceProcess: Sendable {
    struct Options: Sendable {
        var brokerURL: String
        var fencesFile: String
        var journalPath: String
        /// A config file of the demo's own, so that `Config/fleetfence.yaml` in the working
        /// directory (perhaps pointing at a production broker) plays no part.
        var configFile: String
        var clientID: String
        var prefix: String
        var positions: [String]
        var settings: GeofenceSettings

        /// Every key the verifier depends on is given as a flag, so that the service and the
        /// verifier cannot disagree.
        var arguments: [String] {
            [
                "serve",
                "--config", configFile,
                "--broker", brokerURL,
                "--fences", fencesFile,
                "--journal", journalPath,
                "--client-id", clientID,
                "--prefix", prefix,
                "--positions", positions.joined(separator: ","),
                "--debounce", Self.number(settings.debounceSeconds),
                "--silent-confirm", Self.number(settings.silentConfirmSeconds),
                "--hysteresis", Self.number(settings.hysteresisMeters),
                "--min-radius", Self.number(settings.minRadiusMeters),
                "--max-radius", Self.number(settings.maxRadiusMeters),
                "--max-accuracy", Self.number(settings.maxAccuracyMeters),
                "--log-level", "info",
            ]
        }

        static func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
    }

    let process: ChildProcess
    /// The service's standard output and error.
    let logPath: String
    private let watchdog: ChildProcess
    private let watchdogInput: Int32

    /// Starts `executable serve` with an empty config file and no `FLEETFENCE_*` variables: the
    /// demo's own flags are the whole configuration.
    init(executable: String, options: Options, logPath: String) throws {
        do {
            // `{}`: the service refuses a file without a top-level mapping.
            try "# fleetfence demo: every setting is a flag\n{}\n".write(
                toFile: options.configFile, atomically: true, encoding: .utf8)
        } catch {
            throw DemoError("cannot write \(options.configFile): \(error)")
        }
        let log = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw DemoError("cannot create \(logPath): \(String(cString: strerror(errno)))") }
        defer { close(log) }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(null) }
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FLEETFENCE_") }
        let process = try Self.spawn(
            executable: executable, arguments: options.arguments, environment: environment, stdin: null, stdout: log, stderr: log)

        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            process.end(with: SIGKILL, grace: .zero)
            throw DemoError("pipe: \(String(cString: strerror(errno)))")
        }
        // Close-on-exec: no other child may hold the write end, or the pipe would never close.
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let pid = process.pid
        let script = """
            read -r line; [ "$line" = done ] && exit 0
            kill -TERM \(pid) 2>/dev/null; i=0
            while kill -0 \(pid) 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
            kill -KILL \(pid) 2>/dev/null
            """
        do {
            watchdog = try Self.spawn(
                executable: "/bin/sh", arguments: ["-c", script], environment: environment, stdin: ends[0], stdout: null, stderr: null)
        } catch {
            close(ends[0])
            close(ends[1])
            process.end(with: SIGKILL, grace: .zero)
            throw error
        }
        close(ends[0])
        watchdogInput = ends[1]
        self.process = process
        self.logPath = logPath
    }

    /// A `ChildProcess`, its launch failure worded as the demo's other errors.
    private static func spawn(
        executable: String, arguments: [String], environment: [String: String], stdin: Int32, stdout: Int32, stderr: Int32
    ) throws -> ChildProcess {
        do {
            return try ChildProcess(
                executable: executable, arguments: arguments, environment: environment, stdin: stdin, stdout: stdout,
                stderr: stderr)
        } catch {
            guard case let .launchFailed(executable, reason) = error else { throw DemoError("\(error)") }
            throw DemoError("cannot start \(executable): \(reason)")
        }
    }

    var pid: pid_t { process.pid }
    var isRunning: Bool { process.isRunning }
    var terminationStatus: Int32? { process.terminationStatus }

    /// SIGTERM, the service's clean stop (offline published, journal flushed), SIGKILL after
    /// `grace`; then the watchdog is let go. Returns the service's exit status. Idempotent.
    @discardableResult
    func stop(grace: Duration = .seconds(10)) -> Int32 {
        process.end(with: SIGTERM, grace: grace)
        if watchdog.isRunning {
            _ = "done\n".utf8CString.withUnsafeBufferPointer { write(watchdogInput, $0.baseAddress, 5) }
            close(watchdogInput)
            if !watchdog.waitForExit(within: .seconds(1)) { watchdog.end(with: SIGKILL, grace: .zero) }
        }
        return process.terminationStatus ?? -1
    }

    /// The last `count` lines of the service's log, for when it failed.
    func logTail(_ count: Int = 20) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(count + 1)
            .joined(separator: "\n").trimmingCharacters(in: .newlines)
    }
}
