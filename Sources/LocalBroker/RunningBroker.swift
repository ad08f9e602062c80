import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One broker process (mosquitto, or a NATS node), started with `-c CONFIG` and watched (see
/// `WatchedChild`): no broker is left behind by a crashed or killed test run.
struct RunningBroker {
    let broker: WatchedChild

    /// Returns once `port` accepts TCP connections.
    ///
    /// - Parameter program: names the broker in errors ("mosquitto", "nats-server n1").
    static func launch(
        program: String, executable: String, configPath: String, logPath: String, port: Int
    ) throws(LocalBrokerError) -> RunningBroker {
        // Where this run's lines start: the log is kept across restarts.
        let logStart = (try? FileManager.default.attributesOfItem(atPath: logPath)[.size] as? NSNumber)?.int64Value ?? 0
        let running = RunningBroker(
            broker: try WatchedChild(executable: executable, arguments: ["-c", configPath], logPath: logPath))
        let broker = running.broker

        // Ready when the port accepts TCP; a broker that exits meanwhile failed to start.
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let status = broker.terminationStatus {
                running.terminate(signal: SIGTERM)
                throw .exitedEarly(program: program, status: status, output: logText(logPath, from: logStart))
            }
            if LoopbackPort.accepts(port), broker.isRunning {
                return running
            }
            usleep(10_000)
        }
        running.terminate(signal: SIGKILL)
        throw .notReady(program: program, port: port, output: logText(logPath, from: logStart))
    }

    /// Ends the broker (SIGKILL after 5 s) and waits for it. mosquitto saves its persistence
    /// file on SIGTERM; a NATS node leaves the cluster cleanly.
    func terminate(signal: Int32) {
        broker.stop(with: signal, grace: .seconds(5))
    }

    static func logText(_ path: String, from offset: Int64) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        handle.seek(toFileOffset: UInt64(max(0, offset)))
        return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
    }
}
