import Foundation
import LocalBroker
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A running `fleetfence serve` (LocalBroker's `ServiceProcess`) with what the benchmark reads off
/// it: its log as the lines come, and its memory and CPU from /proc.
final class BenchService: Sendable {
    let startNanos: UInt64
    let log = ServiceLog()
    let process: ServiceProcess
    /// Where its HTTP interface listens, when it does.
    let httpPort: Int?
    /// The HTTP readers beside it, when asked for.
    let httpLoad: HTTPLoad?
    private let stopped = Atomic<Bool>(false)

    /// Standard output and error come through a pipe, read as they arrive (start-up is timed by
    /// its lines) and copied to `logPath`.
    init(
        executable: String, options: ServiceProcess.Options, configFile: String, wrapper: [String], logPath: String,
        httpPort: Int? = nil, httpLoad: HTTPLoad? = nil
    ) throws {
        self.httpPort = httpPort
        self.httpLoad = httpLoad
        let errors = try Self.makePipe()
        startNanos = Monotonic.nanos()
        do {
            process = try ServiceProcess(
                executable: executable, options: options, configFile: configFile, logPath: logPath,
                wrapper: wrapper, output: errors.write)
        } catch {
            close(errors.read)
            close(errors.write)
            throw error
        }
        close(errors.write)
        log.startReading(errors.read, copyTo: logPath)
    }

    /// A pipe whose ends are both close-on-exec (`dup2` in the child clears it for the end it takes).
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw BenchError.failed("pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return (ends[0], ends[1])
    }

    var pid: pid_t { process.processID }
    var isRunning: Bool { process.isRunning }

    /// Exit code (128 + signal if killed), nil while running.
    var exitCode: Int32? { process.exitStatus }

    /// VmRSS from /proc/<pid>/status, in bytes.
    var residentBytes: Int? {
        ProcMemory.residentBytes(pid: pid)
    }

    /// User plus system CPU time the service has used so far, from /proc/<pid>/stat.
    var cpuSeconds: Double? {
        ProcCPU.seconds(pid: pid)
    }

    /// The same per thread (the service names its network and journal threads).
    var cpuByThread: [Int32: ProcCPU.ThreadTime] {
        ProcCPU.threads(pid: pid)
    }

    /// What each thread handed to write calls so far (the journal's threads: the journal's bytes).
    var writesByThread: [Int32: ProcIO.ThreadWrites] {
        ProcIO.threads(pid: pid)
    }

    func ensureRunning() throws {
        guard isRunning else { throw BenchError.serviceDied(status: exitCode, log: log.tailText) }
    }

    /// SIGTERM (the service's clean stop), SIGKILL after `grace` seconds. Returns the seconds the
    /// service took to exit. Idempotent.
    @discardableResult
    func stop(grace: Double = 20) -> Double {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return 0 }
        if let httpLoad {
            httpLoad.stop()
            // That the readers read: a stream that carried nothing measured nothing.
            FileHandle.standardError.write(Data(
                "  HTTP readers: \(httpLoad.streamBytes.load(ordering: .relaxed) / 1024) KiB streamed, \(httpLoad.requests.load(ordering: .relaxed)) requests, \(httpLoad.failures.load(ordering: .relaxed)) failed\n".utf8))
        }
        let start = Monotonic.nanos()
        process.signal(SIGTERM)
        _ = process.waitForExit(timeout: .seconds(grace))
        // Measured before the rest of `stop` (a SIGKILL, the watchdog let go), which is not the service's.
        let seconds = Monotonic.since(start)
        process.kill()
        return seconds
    }

    deinit {
        stop(grace: 5)
    }
}
