import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A running `fleetfence serve`, with its log reader and a watchdog: `sh` reading a pipe only we
/// hold, which stops the service if this process dies without stopping it (as LocalBroker does
/// for mosquitto).
final class ServiceProcess: Sendable {
    let pid: pid_t
    let startNanos: UInt64
    let log = ServiceLog()
    private let watchdog: pid_t
    private let watchdogInput: Int32
    private let waitStatus = Mutex<Int32?>(nil)
    private let stopped = Atomic<Bool>(false)

    /// - Parameter wrapper: words put before the executable (e.g. `valgrind --tool=callgrind`).
    init(executable: String, arguments: [String], wrapper: [String], logPath: String) throws {
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { close(null) }
        let errors = try Spawn.makePipe()
        let program = wrapper.isEmpty ? executable : "/usr/bin/env"
        let argv = wrapper.isEmpty ? arguments : wrapper + [executable] + arguments
        startNanos = Monotonic.nanos()
        do {
            pid = try Spawn.launch(executable: program, arguments: argv, stdin: null, stdout: errors.write, stderr: errors.write)
        } catch {
            close(errors.read)
            close(errors.write)
            throw error
        }
        close(errors.write)
        log.startReading(errors.read, copyTo: logPath)

        let guardPipe = try Spawn.makePipe()
        let script = "read -r line; [ \"$line\" = done ] || { kill -TERM \(pid); sleep 10; kill -KILL \(pid); } 2>/dev/null"
        do {
            watchdog = try Spawn.launch(executable: "/bin/sh", arguments: ["-c", script], stdin: guardPipe.read, stdout: null, stderr: null)
        } catch {
            kill(pid, SIGKILL)
            _ = waitpid(pid, nil, 0)
            throw error
        }
        close(guardPipe.read)
        watchdogInput = guardPipe.write
    }

    var isRunning: Bool {
        waitStatus.withLock { status in
            if status != nil { return false }
            status = Spawn.reap(pid)
            return status == nil
        }
    }

    /// Exit code (128 + signal if killed), nil while running.
    var exitCode: Int32? {
        guard !isRunning else { return nil }
        return waitStatus.withLock { $0 }.map(Spawn.exitCode)
    }

    /// VmRSS from /proc/<pid>/status, in bytes.
    var residentBytes: Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let kilobytes = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) }
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }

    func ensureRunning() throws {
        guard isRunning else { throw BenchError.serviceDied(status: exitCode, log: log.tailText) }
    }

    /// SIGTERM (the contract's clean stop), SIGKILL after `grace` seconds. Returns the seconds the
    /// service took to exit. Idempotent.
    @discardableResult
    func stop(grace: Double = 20) -> Double {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return 0 }
        _ = "done\n".utf8CString.withUnsafeBufferPointer { write(watchdogInput, $0.baseAddress, 5) }
        close(watchdogInput)
        let start = Monotonic.nanos()
        if isRunning { kill(pid, SIGTERM) }
        while isRunning, Monotonic.since(start) < grace { Monotonic.sleep(nanoseconds: 2_000_000) }
        if isRunning {
            kill(pid, SIGKILL)
            while isRunning { Monotonic.sleep(nanoseconds: 2_000_000) }
        }
        let seconds = Monotonic.since(start)
        var status: Int32 = 0
        _ = waitpid(watchdog, &status, 0)
        return seconds
    }

    deinit {
        stop(grace: 5)
    }
}
