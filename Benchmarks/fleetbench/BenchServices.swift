import FleetFenceSettings
import LocalBroker

/// How every phase starts `fleetfence serve`: on the private broker, its own journal and config in
/// the run's directory, stats every second.
struct BenchServices: Sendable {
    let executable: String
    let wrapper: [String]
    let brokerURL: String
    let directory: String
    let debounce: Double
    var httpLoad = false
    var homeAssistant = false
    /// `geofence.late_window_s`; nil: the service's default.
    var lateWindow: Double?

    /// - Parameters:
    ///   - name: names the journal, the config and the log file in the run's directory.
    ///   - journal: names another run's journal instead (a restart).
    ///   - http: listen on HTTP even without the HTTP readers (the scale phase asks `/api/memory`).
    func start(name: String, journal: String? = nil, fencesFile: String, clientID: String, prefix: String = "fleetfence",
               positions: String = "fleet/+/position", http: Bool = false) throws -> BenchService {
        let port = httpLoad || http ? try LocalMosquitto.freeLoopbackPort() : nil
        var options = ServiceProcess.Options([
            .brokerURL: brokerURL, .fencesFile: fencesFile, .journalPath: directory + "/\(journal ?? name).db",
            .clientID: clientID, .silentConfirm: "3600", .prefix: prefix, .positionTopics: positions,
            .statsInterval: "1", .logLevel: "info", .httpListen: port.map { "127.0.0.1:\($0)" } ?? "",
        ])
        options.set(.debounce, debounce)
        if homeAssistant { options[.homeAssistant] = "true" }
        if let lateWindow { options.set(.lateWindow, lateWindow) }
        return try BenchService(
            executable: executable, options: options, configFile: directory + "/\(name).yaml", wrapper: wrapper,
            logPath: directory + "/\(name).log", httpPort: port, httpLoad: httpLoad ? port.map(HTTPLoad.init) : nil)
    }
}
