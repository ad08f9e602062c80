import FleetFenceService
import FleetFenceSettings
import FleetFenceTesting
import Testing

/// LocalBroker's `ServeFlag` spells the `serve` flags once more for the programs that start the
/// service (it cannot import FleetFenceService): it must name exactly the flags the service reads.
@Suite struct ServeFlagTests {
    @Test func serveFlagsAreTheConfigurationKeysFlags() {
        #expect(Set(ServeFlag.allCases.map(\.rawValue)) == Set(ConfigurationKey.allCases.map(\.flag)))
    }

    @Test func aCommandLineGivesEveryFlagSetAndAnEmptyConfigFile() {
        var command = ServeCommandLine(configFile: "/tmp/x.yaml")
        command[.broker] = "mqtt://127.0.0.1:1"
        command.set(.debounce, 2)
        command.set(.hysteresis, 2.5)
        command.extraArguments = ["--min-radius", "30"]
        #expect(command.arguments == [
            "serve", "--config", "/tmp/x.yaml", "--broker", "mqtt://127.0.0.1:1", "--debounce", "2",
            "--hysteresis", "2.5", "--min-radius", "30",
        ])
        #expect(!command.environment.keys.contains { $0.hasPrefix("FLEETFENCE_") })
    }
}
