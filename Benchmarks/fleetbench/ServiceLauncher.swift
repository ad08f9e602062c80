import Foundation

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
    ///   - name: names the journal and the log file in the run's directory.
    func start(name: String, fencesFile: String, clientID: String, prefix: String = "fleetfence",
               positions: String = "fleet/+/position") throws -> ServiceProcess {
        // An explicit, empty config file: no Config/fleetfence.yaml of the working directory sneaks in.
        let config = directory + "/\(name).yaml"
        try "# fleetbench: every setting is a flag\n{}\n".write(toFile: config, atomically: true, encoding: .utf8)
        let arguments = [
            "serve", "--config", config, "--broker", brokerURL, "--fences", fencesFile,
            "--journal", directory + "/\(name).db", "--client-id", clientID, "--prefix", prefix,
            "--positions", positions, "--debounce", String(debounce), "--silent-confirm", "3600",
            "--stats-interval", "1", "--log-level", "info",
        ]
        return try ServiceProcess(
            executable: executable, arguments: arguments, wrapper: wrapper, logPath: directory + "/\(name).log")
    }
}
