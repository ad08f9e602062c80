import Foundation
import LocalBroker

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A started program whose output goes to files in a directory of its own, so that a chatty
/// program can never block on a full pipe. Watched (see LocalBroker's `WatchedChild`): it
/// never outlives the test run; the directory goes with this object.
public final class LaunchedProgram: Sendable {
    /// The command line, for messages.
    public let name: String
    private let child: WatchedChild
    private let directory: String
    private var outPath: String { directory + "/out" }
    private var errPath: String { directory + "/err" }

    /// `program` is searched on PATH, /usr/sbin and /usr/local/sbin unless the path is absolute;
    /// it runs in `directory` when given, with `environment` instead of ours when given.
    public init(_ program: String, _ arguments: [String], directory workingDirectory: String? = nil,
                environment: [String: String]? = nil) throws {
        name = "\(program) \(arguments.joined(separator: " "))"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-run-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let out = open(directory + "/out", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        let err = open(directory + "/err", O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { [out, err, null].forEach { close($0) } }
        guard out >= 0, err >= 0, null >= 0 else {
            try? FileManager.default.removeItem(atPath: directory)
            throw TestSupportError("cannot create output files for \(program): \(String(cString: strerror(errno)))")
        }
        do {
            child = try WatchedChild(
                executable: try Self.locate(program), arguments: arguments, environment: environment,
                workingDirectory: workingDirectory, stdin: null, stdout: out, stderr: err)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// The program, if it still runs, is killed with `child`.
    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    public var isRunning: Bool { child.isRunning }

    /// The exit code, or 128 + signal for a program ended by a signal; `nil` while it runs.
    public var status: Int32? { child.terminationStatus }

    /// What it printed so far.
    public var output: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    public var errorOutput: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

    /// `true` once the program has ended, `false` if it still runs after `timeout`.
    public func waitForExit(within timeout: Duration) -> Bool {
        child.waitForExit(within: timeout)
    }

    /// The same without blocking a thread, for long programs in async tests.
    public func waitForExit(within timeout: Duration) async -> Bool {
        await child.waitForExit(within: timeout)
    }

    /// Sends `signal` if the program still runs.
    public func signal(_ signal: Int32) {
        child.send(signal)
    }

    /// Kills the program and says what it printed.
    public func killed(after timeout: Duration) -> TestSupportError {
        child.stop(with: SIGKILL, grace: .zero)
        return TestSupportError("\(name) did not finish within \(timeout):\n\(output)\n\(errorOutput)")
    }

    /// What it printed and how it ended.
    public func result() -> ProcessResult {
        ProcessResult(status: status ?? -1, output: output, errorOutput: errorOutput)
    }

    private static func locate(_ program: String) throws -> String {
        if program.hasPrefix("/") { return program }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin"] {
            let candidate = directory + "/" + program
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw TestSupportError("\(program) not found on PATH")
    }
}
