import Foundation

/// The outcome of `runProcess`.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var output: String
    public var errorOutput: String
}

/// Runs a program to completion (searched on PATH, /usr/sbin and /usr/local/sbin unless
/// the path is absolute), killing it after `timeout`. Output goes through temporary files,
/// so a chatty program cannot block on a full pipe.
public func runProcess(_ program: String, _ arguments: [String], timeout: Duration = .seconds(30)) throws -> ProcessResult {
    let run = try LaunchedProcess(program, arguments, directory: nil, environment: nil)
    let deadline = ContinuousClock.now + timeout
    while run.process.isRunning {
        if ContinuousClock.now >= deadline { throw run.killed(after: timeout) }
        usleep(5_000)
    }
    return run.result()
}

/// The same without blocking a thread while it runs, for long programs in async tests: in
/// `directory` when given, with `environment` instead of this process's when given.
public func runProcess(
    _ program: String, _ arguments: [String], directory: String? = nil, environment: [String: String]? = nil,
    timeout: Duration
) async throws -> ProcessResult {
    let run = try LaunchedProcess(program, arguments, directory: directory, environment: environment)
    let deadline = ContinuousClock.now + timeout
    while run.process.isRunning {
        if ContinuousClock.now >= deadline { throw run.killed(after: timeout) }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return run.result()
}

/// A started program whose output goes to files in a directory of its own.
private struct LaunchedProcess {
    let process = Process()
    let name: String
    let directory: URL
    var outURL: URL { directory.appendingPathComponent("out") }
    var errURL: URL { directory.appendingPathComponent("err") }

    init(_ program: String, _ arguments: [String], directory workingDirectory: String?, environment: [String: String]?) throws {
        name = "\(program) \(arguments.joined(separator: " "))"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        defer {
            try? out.close()
            try? err.close()
        }
        process.executableURL = URL(fileURLWithPath: try locateProgram(program))
        process.arguments = arguments
        if let workingDirectory { process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory) }
        if let environment { process.environment = environment }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        try process.run()
    }

    /// Kills the program and says what it printed.
    func killed(after timeout: Duration) -> TestSupportError {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let printed = result()
        return TestSupportError("\(name) did not finish within \(timeout):\n\(printed.output)\n\(printed.errorOutput)")
    }

    /// What it printed and how it ended; removes its files.
    func result() -> ProcessResult {
        defer { try? FileManager.default.removeItem(at: directory) }
        return ProcessResult(
            status: process.terminationStatus,
            output: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            errorOutput: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}

private func locateProgram(_ program: String) throws -> String {
    if program.hasPrefix("/") { return program }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for directory in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin"] {
        let candidate = directory + "/" + program
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw TestSupportError("\(program) not found on PATH")
}

/// A fresh temporary directory for `body`, removed afterwards.
public func withTemporaryDirectory<Result>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (String) async throws -> Result
) async throws -> Result {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url.path)
}

/// Writes a mosquitto password file with `users` (name: password) via `mosquitto_passwd`.
public func makeMosquittoPasswordFile(at path: String, users: [String: String]) throws {
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    for (user, password) in users.sorted(by: { $0.key < $1.key }) {
        let result = try runProcess("mosquitto_passwd", ["-b", path, user, password])
        guard result.status == 0 else {
            throw TestSupportError("mosquitto_passwd failed: \(result.errorOutput)")
        }
    }
}
