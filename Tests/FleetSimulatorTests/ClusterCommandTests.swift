import FleetFenceTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EndToEndSuites {
    /// `fleetfence cluster` as `Scripts/cluster` runs it (docs/several-instances.md "Several instances"): three nodes
    /// and one instance per partition, the commands to watch and drive them, an instance killed and
    /// started again, and nothing left once it is interrupted.
    @Suite("fleetfence cluster, end to end", .timeLimit(.minutes(2)))
    struct ClusterCommandTests {
        @Test func startsEveryInstanceRestartsAKilledOneAndLeavesNothingBehind() async throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            let program = try LaunchedProgram(
                try ServiceProcess.locateExecutable(), ["cluster", "--partitions", "2"], directory: root.path,
                environment: ChildEnvironment.withoutFleetFenceVariables())
            var transcript: String { "stdout:\n\(program.output)\nstderr:\n\(program.errorOutput)" }
            func waitFor(_ text: String, in stream: @autoclosure () -> String) async throws {
                let deadline = ContinuousClock.now + .seconds(40)
                while !stream().contains(text) {
                    guard ContinuousClock.now < deadline, program.isRunning else {
                        throw TestSupportError("no \"\(text)\"\n\(transcript)")
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            try await waitFor("All 2 instances online", in: program.output)
            let output = program.output
            let pids = output.split(separator: "\n").compactMap { line -> (String, Int32)? in
                guard let match = line.firstMatch(of: /^(node n\d|instance p\d)\b.*\(pid (\d+)\)/), let pid = Int32(match.2) else { return nil }
                return (String(match.1), pid)
            }
            #expect(pids.map(\.0) == ["node n1", "node n2", "node n3", "instance p0", "instance p1"], "\(transcript)")
            let workspace = try #require(output.firstMatch(of: /Files: (\S+) \(removed at the end\)/).map { String($0.1) }, "\(transcript)")
            let ports = output.matches(of: /mqtt:\/\/127\.0\.0\.1:(\d+)/).map { String($0.1) }
            #expect(output.contains("mosquitto_sub -h 127.0.0.1 -p \(ports.first ?? "?") -t 'fleetfence/alerts/#' -v"), "\(transcript)")
            #expect(output.contains("fleetsim --broker mqtt://127.0.0.1:\(ports[0]),mqtt://127.0.0.1:\(ports[1]),mqtt://127.0.0.1:\(ports[2]) --qos 1 --verify"), "\(transcript)")

            // A crashed instance is started again, as a supervisor would.
            let p1 = try #require(pids.first { $0.0 == "instance p1" }?.1)
            kill(p1, SIGKILL)
            try await waitFor("instance p1 started again", in: program.errorOutput)

            program.signal(SIGINT)
            guard await program.waitForExit(within: .seconds(60)) else { throw program.killed(after: .seconds(60)) }
            #expect(program.status == 0, "\(transcript)")
            let restarted = program.errorOutput.firstMatch(of: /instance p1 started again \(pid (\d+)\)/).flatMap { Int32($0.1) }
            for pid in pids.map(\.1) + [restarted].compactMap({ $0 }) {
                #expect(!ProcessTable.isAlive(pid), "pid \(pid) survived: \(transcript)")
            }
            let leftovers = ProcessTable.commandLines().filter { $0.1.contains(workspace) }
            #expect(leftovers.isEmpty, "left behind: \(leftovers)")
            #expect(!FileManager.default.fileExists(atPath: workspace), "\(workspace) left behind")
        }
    }
}
