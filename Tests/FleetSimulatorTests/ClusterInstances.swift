import FleetFenceService
import FleetFenceTesting
import Foundation
import GeofenceEngine

/// How the tests run several instances of `fleetfence serve` on a private NATS cluster, as
/// `fleetfence cluster` does (docs/several-instances.md "Several instances"): instance k is named `p<k>`, follows
/// partition k, and lists every node.
enum ClusterInstances {
    static let debounce = EndToEndSuites.ServiceEndToEndTests.debounce

    static func name(_ partition: Int) -> String { "p\(partition)" }

    /// The instance a device's alerts must come from.
    static func owner(of device: String, partitions: Int) -> String {
        name(NATSPartition.of(device: device, partitions: partitions))
    }

    /// Instance `partition` in-process. `positions` overrides its filter (to misconfigure it),
    /// `name` its name.
    static func configuration(
        _ cluster: LocalNATSCluster, partition: Int, directory: String, silentConfirm: Double,
        name: String? = nil, positions: [String]? = nil, statsInterval: Double = 60
    ) -> ServiceConfiguration {
        let name = name ?? Self.name(partition)
        return ServiceConfiguration(
            brokerURLs: cluster.mqttURLs, clientID: "fleetfence-\(name)-\(getpid())",
            positionTopics: positions ?? ["fleet/\(partition)/+/position"],
            fencesFile: Fixtures.packageRoot.path + "/Config/fences.geojson", journalPath: directory + "/\(name).db",
            geofence: GeofenceSettings(debounceSeconds: debounce, silentConfirmSeconds: silentConfirm),
            statsIntervalSeconds: statsInterval, instanceName: name, http: .init(listen: nil))
    }

    /// The same instance as a process, for what only a process shows (kill -9).
    static func processOptions(
        _ cluster: LocalNATSCluster, partition: Int, directory: String, silentConfirm: Double
    ) -> ServiceProcess.Options {
        let name = Self.name(partition)
        var options = ServiceProcess.Options([
            .brokerURL: cluster.brokerList, .fencesFile: Fixtures.packageRoot.path + "/Config/fences.geojson",
            .journalPath: directory + "/\(name).db", .clientID: "fleetfence-\(name)-\(getpid())",
            .positionTopics: "fleet/\(partition)/+/position", .statsInterval: "60", .instanceName: name, .httpListen: "",
        ])
        options.set(.debounce, debounce)
        options.set(.silentConfirm, silentConfirm)
        return options
    }

    /// fleetsim's flags as the single-instance end-to-end test runs them, at QoS 1 so that a
    /// position outlives a lost node or a killed instance.
    static func fleetsimArguments(broker: String, seed: UInt64, silentConfirm: Double) -> [String] {
        EndToEndSuites.ServiceEndToEndTests.fleetsimArguments(broker: broker, seed: seed, qos: 1, silentConfirm: silentConfirm)
    }
}
