import FleetFenceSettings
import LocalBroker

/// One instance of `fleetfence serve` in `fleetfence cluster` (docs/several-instances.md "Several instances"):
/// instance k is `p<k>`, follows partition k, lists every node, and keeps its journal, config
/// and log in the workspace under its name. Its client id is fixed, so that a restarted instance
/// resumes its session and gets the positions queued for it.
struct ClusterInstance: Sendable {
    let partition: Int
    let options: ServiceProcess.Options
    let workspace: String

    var name: String { options[.instanceName] ?? "p\(partition)" }
    var configFile: String { workspace + "/\(name).yaml" }
    var logPath: String { workspace + "/\(name).log" }

    init(partition: Int, brokerList: String, fencesFile: String, workspace: String, debounce: Double?, silentConfirm: Double?) {
        self.partition = partition
        self.workspace = workspace
        let name = "p\(partition)"
        var options = ServiceProcess.Options([
            .brokerURL: brokerList, .fencesFile: fencesFile, .journalPath: workspace + "/\(name).db",
            .clientID: "fleetfence-\(name)", .positionTopics: "fleet/\(partition)/+/position", .logLevel: "info",
            .instanceName: name,
            // Several instances on one machine: one port each or none; none here.
            .httpListen: "",
        ])
        if let debounce { options.set(.debounce, debounce) }
        if let silentConfirm { options.set(.silentConfirm, silentConfirm) }
        self.options = options
    }

    func start(executable: String) throws(LocalBrokerError) -> ServiceProcess {
        try ServiceProcess(executable: executable, options: options, configFile: configFile, logPath: logPath)
    }
}
