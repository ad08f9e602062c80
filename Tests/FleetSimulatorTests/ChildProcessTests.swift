import Foundation
import LocalBroker
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The children the demo, the benchmarks and the tests start (`WatchedChild`): what they are
/// given is what they get.
@Suite struct ChildProcessTests {
    /// Every variable arrives exactly: each entry handed to the child ends where its value does.
    /// Before, the entries had no terminating NUL, and the child read on into the bytes after them
    /// (`-32768es` arrived for `-32768`); many entries of many lengths make such bytes likely.
    @Test func aChildGetsItsEnvironmentExactly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment: [String: String] = [:]
        for index in 0..<300 {
            environment["FF_TEST_\(index)"] = String(repeating: "v", count: index % 37) + "-\(index)"
        }
        let log = folder.appendingPathComponent("env.txt").path
        let child = try WatchedChild(executable: "/usr/bin/env", arguments: [], environment: environment, logPath: log)
        #expect(child.waitForExit(within: .seconds(10)))
        let printed = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(printed.sorted() == environment.map { "\($0.key)=\($0.value)" }.sorted())
    }
}
