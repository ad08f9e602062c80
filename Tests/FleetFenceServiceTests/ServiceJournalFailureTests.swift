import FleetFenceJournal
import FleetFenceTesting
import Foundation
import LocalBroker
import Testing

/// The journal is the promise behind every alert (docs/operations.md "Limits and failures"): a journal that
/// cannot be written stops the service, non-zero, before it publishes what it could not journal;
/// a damaged or unwritable one is refused at start.
@Suite("Service: a journal that fails", .timeLimit(.minutes(1)), .serialized)
struct ServiceJournalFailureTests {
    /// A journal deleted under the service took every later row with it, and the next start
    /// numbered alerts from 1 again without a word: now the next write stops the service, and a
    /// start that creates a journal says so.
    @Test func aJournalDeletedWhileServingStopsTheServiceAndANewOneIsSaid() async throws {
        try await withService(.asProcess) { h in
            let first = try #require(h.service?.process)
            #expect(first.log.contains("journal created"), "\(first.logTail())")
            try await h.position("truck-7", north: 300, ts: T)
            try await h.barrier()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: h.journalPath + suffix) }
            try await h.position("truck-7", north: 100, ts: T + 10)
            try await h.position("truck-7", north: 100, ts: T + 12)  // an enter with nowhere to go
            #expect(await first.waitForExit(timeout: .seconds(15)), "the service must stop")
            #expect(first.exitStatus == 3)
            #expect(first.log.contains("is gone (its file was deleted"), "\(first.logTail())")
            #expect(h.alerts("truck-7").isEmpty, "an alert without its row: \(h.alerts("truck-7"))")
            try await h.startService()
            #expect(try #require(h.service?.process).log.contains("journal created"))
        }
    }

    @Test func aJournalThatCannotBeWrittenStopsTheServiceAndNoAlertGoesOutWithoutItsRow() async throws {
        try await withService(.asProcess) { h in
            try await h.position("truck-7", north: 300, ts: T)
            try await h.barrier()
            // Its first sight is journaled by the next tick (a quarter second).
            try await Task.sleep(for: .seconds(1))
            // The main file and the WAL; not the shared-memory index, which SQLite maps: a write
            // refused there is a SIGBUS, not an error SQLite can report.
            let lock = try ReadOnlyFiles([h.journalPath, h.journalPath + "-wal"])
            defer { lock.release() }
            try await h.position("truck-7", north: 100, ts: T + 10)
            try await h.position("truck-7", north: 100, ts: T + 12)  // an enter the journal cannot hold
            let service = try #require(h.service?.process)
            #expect(await service.waitForExit(timeout: .seconds(15)), "the service must stop")
            #expect(service.exitStatus != 0)
            #expect(service.log.contains("journal write failed"), "\(service.logTail())")
            #expect(try await h.waitForRetained("fleetfence/status") { $0?.text == "offline" }?.text == "offline")
            #expect(h.alerts("truck-7").isEmpty, "an alert without its row: \(h.alerts("truck-7"))")

            // The positions it had taken are lost with it (MQTT acknowledges on receipt), but the
            // broker keeps those sent while it is down (QoS 1, the service's session). A supervisor
            // restarts it once the journal is writable: the enter is alerted then, as seq 1.
            try await h.position("truck-7", north: 100, ts: T + 20)
            try await h.position("truck-7", north: 100, ts: T + 23)
            lock.release()
            try await h.startService()
            let enter = try #require(await h.waitForAlerts("truck-7", count: 1).first)
            #expect(enter.event == "enter" && enter.seq == 1, "\(enter)")
        }
    }

    /// A disk that fills while the service runs: it stops cleanly once the WAL could no longer
    /// grow to its forced checkpoint, before any write fails, so what it took from the broker is
    /// journaled; its restarts are refused until there is room again.
    @Test(.enabled(if: ScratchFileSystem.isAvailable, "mounting a small tmpfs needs root (CI has it)"))
    func aJournalDiskThatFillsStopsTheServiceCleanlyAndRefusesItUntilThereIsRoom() async throws {
        try await withLocalBroker { broker in
            try await withTemporaryDirectory { directory in
                let disk = try ScratchFileSystem(at: directory + "/disk", megabytes: 48)
                defer { try? disk.unmount() }
                let options = ServiceProcess.Options([
                    .brokerURL: broker.url, .journalPath: disk.path + "/journal.db", .fencesFile: directory + "/none.geojson",
                    .httpListen: "", .clientID: "disk-\(getpid())",
                ])
                let service = try await ServiceProcess.start(options, workingDirectory: directory)
                try await publishOnce(
                    url: broker.url, topic: "fleet/truck-1/position",
                    payload: Array(#"{"lat":49.0,"lon":8.4,"ts":\#(Date().timeIntervalSince1970)}"#.utf8))
                // Room for the journal, not for its WAL to grow to a checkpoint (about 31 MiB).
                try disk.fill(leaving: 16 << 20)
                #expect(await service.waitForExit(timeout: .seconds(10)), "the service must stop")
                #expect(service.exitStatus == 3, "\(service.logTail())")
                #expect(service.log.contains("journal's disk is nearly full"), "\(service.logTail())")
                #expect(!service.log.contains("journal write failed"), "\(service.logTail())")
                // Its clean stop journaled the device it had heard.
                let journal = try Journal(readingOnly: disk.path + "/journal.db")
                #expect(try journal.loadDevices().map(\.device) == ["truck-1"])
                try journal.close()

                await #expect(throws: (any Error).self) {
                    _ = try await ServiceProcess.start(options, workingDirectory: directory, readyTimeout: .seconds(10))
                }
                try disk.free()
                let again = try await ServiceProcess.start(options, workingDirectory: directory)
                #expect(await again.terminate() == 0, "\(again.logTail())")
            }
        }
    }

    @Test func aDamagedJournalIsRefusedAtStart() async throws {
        try await withTemporaryDirectory { directory in
            let journal = directory + "/journal.db"
            try Data(repeating: 0x41, count: 16_384).write(to: URL(fileURLWithPath: journal))
            let run = try await serve(journal: journal, in: directory)
            #expect(run.status != 0)
            #expect(run.errorOutput.contains("damaged"), "\(run.errorOutput)")
            // Never reset silently.
            #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == Data(repeating: 0x41, count: 16_384))
        }
    }

    @Test func anUnwritableJournalIsRefusedAtStart() async throws {
        try await withTemporaryDirectory { directory in
            let journal = directory + "/journal.db"
            let first = try await serve(journal: journal, in: directory, stopAfterStart: true)
            #expect(first.status == 0, "\(first.errorOutput)")
            let lock = try ReadOnlyFiles([journal])
            defer { lock.release() }
            let run = try await serve(journal: journal, in: directory)
            #expect(run.status != 0)
            #expect(run.errorOutput.contains("cannot be written"), "\(run.errorOutput)")
        }
    }

    /// `fleetfence serve` on `journal` against a broker of its own: with `stopAfterStart`, SIGTERM
    /// once it says it serves; otherwise it is expected to refuse and end by itself.
    private func serve(journal: String, in directory: String, stopAfterStart: Bool = false) async throws -> ProcessResult {
        try await withLocalBroker { broker in
            let command = ServeCommandLine(
                configFile: directory + "/empty.yaml",
                settings: [
                    .brokerURL: broker.url, .journalPath: journal, .fencesFile: directory + "/none.geojson", .httpListen: "",
                    .clientID: "refusal-\(getpid())",
                ])
            try command.writeConfigFile()
            let program = try LaunchedProgram(
                try FleetFenceExecutable.locate(), command.arguments, environment: command.environment)
            if stopAfterStart {
                let deadline = ContinuousClock.now + .seconds(20)
                while !program.errorOutput.contains("fences"), ContinuousClock.now < deadline, program.isRunning {
                    try await Task.sleep(for: .milliseconds(50))
                }
                program.signal(SIGTERM)
            }
            guard await program.waitForExit(within: .seconds(20)) else { throw program.killed(after: .seconds(20)) }
            return program.result()
        }
    }
}

/// Files nobody may write while held, root included: `chattr +i` where this runs as root (root
/// ignores permissions), `chmod a-w` otherwise.
final class ReadOnlyFiles: Sendable {
    let paths: [String]
    private let immutable: Bool

    init(_ candidates: [String]) throws {
        paths = candidates.filter { FileManager.default.fileExists(atPath: $0) }
        immutable = getuid() == 0
        for path in paths {
            if immutable {
                let result = try runProcess("chattr", ["+i", path])
                guard result.status == 0 else { throw TestError("chattr +i \(path): \(result.errorOutput)") }
            } else {
                try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: path)
            }
        }
    }

    func release() {
        for path in paths {
            if immutable {
                _ = try? runProcess("chattr", ["-i", path])
            } else {
                try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            }
        }
    }
}
