import Foundation
import GeofenceEngine
import LocalBroker

/// The real `fleetfence serve`, this same executable, as a child of the demo.
///
/// It never outlives the demo: `stop()` on every way out, and for the ways out that run no code
/// (a crash, SIGKILL) the watchdog of `WatchedChild`.
final class DemoServiceProcess: Sendable {
    struct Options: Sendable {
        var brokerURL: String
        var fencesFile: String
        var journalPath: String
        /// A config file of the demo's own, so that `Config/fleetfence.yaml` in the working
        /// directory (perhaps pointing at a production broker) plays no part.
        var configFile: String
        var clientID: String
        var prefix: String
        var positions: [String]
        var settings: GeofenceSettings

        /// Every key the verifier depends on is given as a flag, so that the service and the
        /// verifier cannot disagree.
        var commandLine: ServeCommandLine {
            var command = ServeCommandLine(configFile: configFile)
            command[.broker] = brokerURL
            command[.fences] = fencesFile
            command[.journal] = journalPath
            command[.clientID] = clientID
            command[.prefix] = prefix
            command[.positions] = positions.joined(separator: ",")
            command.set(.debounce, settings.debounceSeconds)
            command.set(.silentConfirm, settings.silentConfirmSeconds)
            command.set(.hysteresis, settings.hysteresisMeters)
            command.set(.minRadius, settings.minRadiusMeters)
            command.set(.maxRadius, settings.maxRadiusMeters)
            command.set(.maxAccuracy, settings.maxAccuracyMeters)
            command[.logLevel] = "info"
            return command
        }
    }

    private let child: WatchedChild
    /// The service's standard output and error.
    let logPath: String

    /// Starts `executable serve` with the demo's flags as the whole configuration.
    init(executable: String, options: Options, logPath: String) throws {
        let command = options.commandLine
        do {
            try command.writeConfigFile()
        } catch {
            throw DemoError("cannot write \(options.configFile): \(error)")
        }
        do {
            child = try WatchedChild(
                executable: executable, arguments: command.arguments, environment: command.environment, logPath: logPath)
        } catch {
            guard case let .launchFailed(executable, reason) = error else { throw DemoError("\(error)") }
            throw DemoError("cannot start \(executable): \(reason)")
        }
        self.logPath = logPath
    }

    var pid: pid_t { child.pid }
    var isRunning: Bool { child.isRunning }
    var terminationStatus: Int32? { child.terminationStatus }

    /// SIGTERM, the service's clean stop (offline published, journal flushed), SIGKILL after
    /// `grace`. Returns the service's exit status. Idempotent.
    @discardableResult
    func stop(grace: Duration = .seconds(10)) -> Int32 {
        child.stop(with: SIGTERM, grace: grace)
    }

    /// The last `count` lines of the service's log, for when it failed.
    func logTail(_ count: Int = 20) -> String {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(count + 1)
            .joined(separator: "\n").trimmingCharacters(in: .newlines)
    }
}
