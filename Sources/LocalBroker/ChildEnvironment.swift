import Foundation

/// The environment for a FleetFence program we start and configure by its flags.
public enum ChildEnvironment {
    /// Ours without the `FLEETFENCE_*` variables: they configure the service (and give fleetsim
    /// its defaults), and the ones of whoever runs the demo, the tests or the benchmark must not
    /// change what the child does.
    public static func withoutFleetFenceVariables(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String: String] {
        environment.filter { !$0.key.hasPrefix("FLEETFENCE_") }
    }
}
