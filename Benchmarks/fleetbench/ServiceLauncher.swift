import Foundation
import LocalBroker

/// Starts `fleetfence serve` the way every phase needs it: the release binary next to this one,
/// on the private broker, its own journal and config in the run's directory, stats every second.
struct ServiceLauncher: Sendable {
    let executable: String
    let wrapper: [String]
    let brokerURL: String
    let directory: String
    let debounce: Double

    /// The `fleetfence` built with this benchmark (same scratch path, same configuration).
    static func locateExecutable(override: String?) throws -> String {
        if let override { return override }
        let ownPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]
        let candidate = URL(fileURLWithPath: ownPath).deletingLastPathComponent().appendingPathComponent("fleetfence").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw BenchError.failed(
                "no fleetfence next to fleetbench (\(candidate)); build it first: swift build -c release --product fleetfence")
        }
        return candidate
    }

    /// - Parameters:
    ///   - name: names the journal, the config and the log file in the run's directory.
    ///   - journal: names another run's journal instead (a restart).
    func start(name: String, journal: String? = nil, fencesFile: String, clientID: String, prefix: String = "fleetfence",
               positions: String = "fleet/+/position") throws -> ServiceProcess {
        var command = ServeCommandLine(configFile: directory + "/\(name).yaml")
        command[.broker] = brokerURL
        command[.fences] = fencesFile
        command[.journal] = directory + "/\(journal ?? name).db"
        command[.clientID] = clientID
        command[.prefix] = prefix
        command[.positions] = positions
        command.set(.debounce, debounce)
        command.set(.silentConfirm, 3600)
        command.set(.statsInterval, 1)
        command[.logLevel] = "info"
        return try ServiceProcess(executable: executable, command: command, wrapper: wrapper, logPath: directory + "/\(name).log")
    }
}
