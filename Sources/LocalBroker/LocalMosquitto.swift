import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A private mosquitto on a free loopback port, for `fleetfence demo`, benchmarks and
/// tests. It never outlives its owner: `stop()`, `deinit`, and — if this process dies
/// without either — a watchdog shell that ends the broker when our end of its pipe closes.
public final class LocalMosquitto: Sendable {
    public let port: Int
    /// `mqtt://127.0.0.1:PORT`
    public var url: String { "mqtt://127.0.0.1:\(port)" }
    /// Holds the generated mosquitto.conf and the broker's log; removed in deinit.
    public let workDirectory: String
    public var configPath: String { workDirectory + "/mosquitto.conf" }
    public var logPath: String { workDirectory + "/mosquitto.log" }

    private let executable: String
    private let running = Mutex<RunningBroker?>(nil)

    /// Starts mosquitto and returns once its port accepts TCP connections.
    ///
    /// - Parameters:
    ///   - extraConfig: mosquitto.conf lines appended to the defaults (an option set here
    ///     replaces the default line for it).
    ///   - persistenceDirectory: enables persistence there (kept across `restart()`);
    ///     `nil` runs without persistence.
    ///   - port: a fixed port; `nil` picks a free one.
    public static func start(extraConfig: String = "", persistenceDirectory: String? = nil, port: Int? = nil) throws -> LocalMosquitto {
        let executable = try BrokerExecutable.mosquitto()
        // A free port can be taken by someone else before mosquitto binds it: try another.
        let attempts = port == nil ? 5 : 1
        var lastError: LocalBrokerError?
        for _ in 0..<attempts {
            let chosen = try port ?? LoopbackPort.free()
            let broker = try LocalMosquitto(
                executable: executable,
                configuration: BrokerConfiguration(port: chosen, persistenceDirectory: persistenceDirectory, extraConfig: extraConfig)
            )
            do {
                try broker.launch()
                return broker
            } catch {
                guard case let .exitedEarly(_, _, output) = error, output.contains("Address already in use") else { throw error }
                lastError = error
            }
        }
        throw lastError ?? .noFreePort(reason: "gave up")
    }

    /// A loopback port nothing listens on right now (for `port:` or for tests that need
    /// an address where connecting fails).
    public static func freeLoopbackPort() throws -> Int {
        try LoopbackPort.free()
    }

    /// Whether nothing accepts connections on 127.0.0.1:`port` right now.
    public static func isFree(port: Int) -> Bool {
        !LoopbackPort.accepts(port)
    }

    private init(executable: String, configuration: BrokerConfiguration) throws(LocalBrokerError) {
        self.executable = executable
        self.port = configuration.port
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-mosquitto-XXXXXX").path
        var buffer = Array(template.utf8CString)
        guard let created = mkdtemp(&buffer) else {
            throw .setupFailed(reason: "mkdtemp: \(String(cString: strerror(errno)))")
        }
        self.workDirectory = String(cString: created)
        do {
            try configuration.text.write(toFile: workDirectory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        } catch {
            throw .setupFailed(reason: "writing mosquitto.conf: \(error)")
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: workDirectory)
    }

    /// The broker's process id, 0 when stopped.
    public var processID: Int32 {
        running.withLock { $0?.broker.pid ?? 0 }
    }

    public var isRunning: Bool {
        running.withLock { $0?.broker.isRunning ?? false }
    }

    /// What mosquitto logged so far (all runs of this instance).
    public var log: String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    /// SIGTERM, then waits for the exit (SIGKILL after 5 s). mosquitto saves its
    /// persistence file on SIGTERM. Idempotent.
    public func stop() {
        running.withLock { running in
            running?.terminate(signal: SIGTERM)
            running = nil
        }
    }

    /// SIGKILL: a broker crash, nothing saved.
    public func kill() {
        running.withLock { running in
            running?.terminate(signal: SIGKILL)
            running = nil
        }
    }

    /// Sends `signal` to the running broker, if any: SIGSTOP and SIGCONT freeze and thaw it (a
    /// broker that hangs with its connections open), SIGUSR1 makes it save its persistence file.
    public func signal(_ signal: Int32) {
        running.withLock { $0?.broker.send(signal) }
    }

    /// Stops and starts again on the same port with the same configuration and persistence.
    public func restart() throws {
        stop()
        try launch()
    }

    private func launch() throws(LocalBrokerError) {
        let failure = running.withLock { running -> LocalBrokerError? in
            guard running == nil else { return nil }
            do throws(LocalBrokerError) {
                running = try RunningBroker.launch(
                    program: "mosquitto", executable: executable, configPath: configPath, logPath: logPath, port: port)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }
}
