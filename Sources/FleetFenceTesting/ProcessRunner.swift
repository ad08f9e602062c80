import Foundation

/// The outcome of `runProcess`.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var output: String
    public var errorOutput: String
}

/// Runs a program to completion (see `LaunchedProgram`), killing it after `timeout`.
public func runProcess(_ program: String, _ arguments: [String], timeout: Duration = .seconds(30)) throws -> ProcessResult {
    let run = try LaunchedProgram(program, arguments)
    guard run.waitForExit(within: timeout) else { throw run.killed(after: timeout) }
    return run.result()
}

/// The same without blocking a thread while it runs, for long programs in async tests: in
/// `directory` when given, with `environment` instead of this process's when given.
public func runProcess(
    _ program: String, _ arguments: [String], directory: String? = nil, environment: [String: String]? = nil,
    timeout: Duration
) async throws -> ProcessResult {
    let run = try LaunchedProgram(program, arguments, directory: directory, environment: environment)
    guard await run.waitForExit(within: timeout) else { throw run.killed(after: timeout) }
    return run.result()
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
