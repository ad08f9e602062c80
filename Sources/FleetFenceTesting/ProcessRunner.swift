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
    let executable = try locateProgram(program)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let outURL = directory.appendingPathComponent("out"), errURL = directory.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)

    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = out
    process.standardError = err
    try process.run()
    try? out.close()
    try? err.close()

    let deadline = ContinuousClock.now + timeout
    while process.isRunning {
        if ContinuousClock.now >= deadline {
            process.terminate()
            throw TestSupportError("\(program) \(arguments.joined(separator: " ")) did not finish within \(timeout)")
        }
        usleep(5_000)
    }
    return ProcessResult(
        status: process.terminationStatus,
        output: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
        errorOutput: (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
    )
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
