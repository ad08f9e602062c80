import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One mosquitto process plus its watchdog.
///
/// The watchdog is `sh` reading a pipe whose write end only this process holds (it is
/// close-on-exec, so no other child inherits it). When we stop the broker we write "done"
/// and the watchdog exits quietly; if this process dies first (a crashed or killed test
/// run), the kernel closes the pipe, `read` sees end-of-file and the watchdog terminates
/// the broker, so no mosquitto is left behind.
struct RunningBroker {
    let broker: ChildProcess
    let watchdog: ChildProcess
    let watchdogInput: Int32

    static func launch(executable: String, configPath: String, logPath: String, port: Int) throws(LocalBrokerError) -> RunningBroker {
        let log = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard log >= 0 else { throw .setupFailed(reason: "cannot open \(logPath): \(String(cString: strerror(errno)))") }
        defer { close(log) }
        let logStart = lseek(log, 0, SEEK_END)
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(null) }

        let broker = try ChildProcess(executable: executable, arguments: ["-c", configPath], stdin: null, stdout: log, stderr: log)

        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else {
            broker.end(with: SIGKILL)
            throw .setupFailed(reason: "pipe: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        let watchdog: ChildProcess
        do {
            watchdog = try ChildProcess(
                executable: "/bin/sh",
                arguments: ["-c", "read -r line; [ \"$line\" = done ] || kill -TERM \(broker.pid) 2>/dev/null"],
                stdin: pipeEnds[0], stdout: null, stderr: null
            )
        } catch {
            close(pipeEnds[0])
            close(pipeEnds[1])
            broker.end(with: SIGKILL)
            throw error
        }
        close(pipeEnds[0])
        let running = RunningBroker(broker: broker, watchdog: watchdog, watchdogInput: pipeEnds[1])

        // Ready when the port accepts TCP; a broker that exits meanwhile failed to start.
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let status = broker.terminationStatus {
                running.terminate(signal: SIGTERM)
                throw .exitedEarly(status: status, output: logText(logPath, from: logStart))
            }
            if LoopbackPort.accepts(port), broker.isRunning {
                return running
            }
            usleep(10_000)
        }
        running.terminate(signal: SIGKILL)
        throw .notReady(port: port, output: logText(logPath, from: logStart))
    }

    /// Ends broker and watchdog and waits for both. mosquitto saves its persistence file
    /// on SIGTERM.
    func terminate(signal: Int32) {
        _ = "done\n".utf8CString.withUnsafeBufferPointer { write(watchdogInput, $0.baseAddress, 5) }
        close(watchdogInput)
        broker.end(with: signal)
        watchdog.end(with: SIGKILL, grace: .seconds(1))
    }

    private static func logText(_ path: String, from offset: off_t) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        handle.seek(toFileOffset: UInt64(max(0, offset)))
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }
}
