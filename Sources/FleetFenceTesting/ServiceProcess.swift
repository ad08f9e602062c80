import Foundation
import LocalBroker
import MQTT
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The real `fleetfence serve` as a child process, for end-to-end tests: real signals, a real
/// broker, a real journal.
///
/// `start` returns once the service said `online` on its status topic. The service never outlives
/// its owner: `terminate()`/`kill()`, `deinit`, and — if the test process dies without either — a
/// watchdog shell that SIGKILLs the service when our end of its pipe closes.
public final class ServiceProcess: Sendable {
    /// The flags given to `fleetfence serve`.
    public struct Options: Sendable {
        public var brokerURL: String
        public var fencesFile: String
        public var journalPath: String
        public var clientID: String
        public var debounce: Double
        public var silentConfirm: Double
        /// `nil`: the service's default (`fleetfence`).
        public var prefix: String?
        /// `nil`: the service's default (`fleet/+/position`).
        public var positions: [String]?
        public var statsInterval: Int
        public var logLevel: String
        /// Appended as given, e.g. `["--min-radius", "30"]`.
        public var extraArguments: [String]

        public init(
            brokerURL: String, fencesFile: String, journalPath: String, clientID: String,
            debounce: Double = 2, silentConfirm: Double = 2, prefix: String? = nil, positions: [String]? = nil,
            statsInterval: Int = 1, logLevel: String = "info", extraArguments: [String] = []
        ) {
            self.brokerURL = brokerURL
            self.fencesFile = fencesFile
            self.journalPath = journalPath
            self.clientID = clientID
            self.debounce = debounce
            self.silentConfirm = silentConfirm
            self.prefix = prefix
            self.positions = positions
            self.statsInterval = statsInterval
            self.logLevel = logLevel
            self.extraArguments = extraArguments
        }

        /// The root of every topic the service writes.
        public var effectivePrefix: String { prefix ?? "fleetfence" }

        public var arguments: [String] {
            var arguments = [
                "serve",
                "--broker", brokerURL,
                "--fences", fencesFile,
                "--journal", journalPath,
                "--debounce", Self.number(debounce),
                "--silent-confirm", Self.number(silentConfirm),
                "--client-id", clientID,
                "--stats-interval", String(statsInterval),
                "--log-level", logLevel,
            ]
            if let prefix { arguments += ["--prefix", prefix] }
            if let positions { arguments += ["--positions", positions.joined(separator: ",")] }
            return arguments + extraArguments
        }

        private static func number(_ value: Double) -> String {
            value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        }
    }

    public let options: Options
    public let executable: String
    public let workingDirectory: String
    /// Standard output and standard error of the service.
    public let logPath: String
    public let processID: Int32

    private let process: Process
    private let watchdog: Watchdog

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

    private init(options: Options, executable: String, workingDirectory: String) throws {
        self.options = options
        self.executable = executable
        self.workingDirectory = workingDirectory
        let logPath = workingDirectory + "/fleetfence-\(UUID().uuidString.prefix(8)).log"
        self.logPath = logPath
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
            throw TestSupportError("cannot create \(logPath)")
        }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? log.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = options.arguments
        process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
        // The test's own FLEETFENCE_* variables must not configure the service under test.
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FLEETFENCE_") }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log
        try process.run()
        self.process = process
        self.processID = process.processIdentifier
        do {
            self.watchdog = try Watchdog(guarding: process.processIdentifier)
        } catch {
            Foundation.kill(process.processIdentifier, SIGKILL)
            Self.reap(process)
            throw error
        }
    }

    deinit {
        if process.isRunning {
            Foundation.kill(processID, SIGKILL)
            Self.reap(process)
        }
        watchdog.dismiss()
    }

    /// Blocks until `process` has ended (at most 10 s): for deinit and failed starts only.
    private static func reap(_ process: Process) {
        let deadline = ContinuousClock.now + .seconds(10)
        while process.isRunning, ContinuousClock.now < deadline { usleep(2_000) }
    }

    // MARK: Control

    public var isRunning: Bool { process.isRunning }

    /// The exit code, or 128 + signal for a service ended by a signal; `nil` while it runs.
    public var exitStatus: Int32? {
        guard !process.isRunning else { return nil }
        switch process.terminationReason {
        case .exit: return process.terminationStatus
        case .uncaughtSignal: return 128 + process.terminationStatus
        @unknown default: return process.terminationStatus
        }
    }

    /// SIGTERM, then waits up to `grace` for the exit (SIGKILL after that). Returns the exit
    /// status: 0 for a clean stop, 128 + 9 when it had to be killed.
    @discardableResult
    public func terminate(grace: Duration = .seconds(10)) async -> Int32 {
        await end(with: SIGTERM, grace: grace)
    }

    /// SIGKILL: a crash, nothing flushed, the broker publishes the last will.
    @discardableResult
    public func kill() async -> Int32 {
        await end(with: SIGKILL, grace: .seconds(10))
    }

    /// SIGHUP: reload the fences file.
    public func hangup() {
        signal(SIGHUP)
    }

    /// Sends `signal` if the service still runs.
    public func signal(_ signal: Int32) {
        if process.isRunning { Foundation.kill(processID, signal) }
    }

    /// Waits up to `timeout` for the service to end on its own; `true` if it did.
    public func waitForExit(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    private func end(with signal: Int32, grace: Duration) async -> Int32 {
        self.signal(signal)
        if !(await waitForExit(timeout: grace)) {
            self.signal(SIGKILL)
            _ = await waitForExit(timeout: .seconds(10))
        }
        watchdog.dismiss()
        return exitStatus ?? -1
    }

    /// What the service wrote to standard output and standard error so far.
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    // MARK: Locating the binary

    /// The built `fleetfence`: `FLEETFENCE_BINARY` if set, else next to the test bundle (the same
    /// build directory, so `--scratch-path` is honoured), else the package's `.build/debug`.
    public static func locateExecutable(filePath: String = #filePath) throws -> String {
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["FLEETFENCE_BINARY"], !explicit.isEmpty {
            candidates.append(explicit)
        }
        var directories: [URL] = []
        let bundle = URL(fileURLWithPath: Bundle.main.bundlePath)
        directories.append(bundle.hasDirectoryPath ? bundle : bundle.deletingLastPathComponent())
        directories.append(bundle.deletingLastPathComponent())
        if let first = CommandLine.arguments.first, first.contains("/") {
            let runner = URL(fileURLWithPath: first).resolvingSymlinksInPath()
            directories.append(runner.deletingLastPathComponent())
            // macOS: .../debug/X.xctest/Contents/MacOS/X
            directories.append(
                runner.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent())
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(URL(fileURLWithPath: bundle.bundlePath).deletingLastPathComponent())
        }
        candidates += directories.map { $0.appendingPathComponent("fleetfence").path }
        // Sources/FleetFenceTesting/ServiceProcess.swift -> the package root.
        let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates += [".build-svctests/debug/fleetfence", ".build/debug/fleetfence"].map {
            root.appendingPathComponent($0).path
        }
        for candidate in candidates where FileManager.default.isExecutableFile(atPath: candidate) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue {
                return candidate
            }
        }
        throw TestSupportError(
            "fleetfence binary not found (build it first: swift build); looked at:\n"
                + candidates.joined(separator: "\n"))
    }
}

/// `sh` reading a pipe whose write end only this process holds (close-on-exec): when the test
/// process dies without stopping the service, the pipe closes and the watchdog kills the service.
private final class Watchdog: Sendable {
    private let input = Mutex<Int32>(-1)
    private let process: Process

    init(guarding pid: Int32) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw TestSupportError("pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "read -r line; [ \"$line\" = done ] || kill -KILL \(pid) 2>/dev/null"]
        process.standardInput = FileHandle(fileDescriptor: ends[0], closeOnDealloc: false)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        close(ends[0])
        self.process = process
        input.withLock { $0 = ends[1] }
    }

    /// Tells the watchdog to leave quietly. Idempotent.
    func dismiss() {
        input.withLock { fd in
            guard fd >= 0 else { return }
            _ = "done\n".withCString { write(fd, $0, 5) }
            close(fd)
            fd = -1
        }
    }

    deinit {
        dismiss()
    }
}
