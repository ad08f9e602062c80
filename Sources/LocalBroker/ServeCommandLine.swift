import FleetFenceSettings
import Foundation

/// `fleetfence serve` configured by its flags alone, as the demo, the tests and fleetbench start it.
///
/// The service reads flags first, then `FLEETFENCE_*` variables, then a config file, by default
/// `Config/fleetfence.yaml` in its working directory (perhaps one pointing at a production
/// broker). So the child gets an environment without our `FLEETFENCE_*` variables and `--config`
/// naming an empty file of its own: a setting not given as a flag is the service's default.
public struct ServeCommandLine: Sendable {
    /// Written by `writeConfigFile()`; pass a path in a directory of the run's own.
    public var configFile: String
    /// The settings given, each as its flag.
    public var settings: [ConfigurationKey: String]
    /// Appended as given, after the flags.
    public var extraArguments: [String] = []
    /// The config file's text instead of the empty file: what only the file holds (`webhooks`,
    /// `inputs.mappings`).
    public var configText: String?

    public init(configFile: String, settings: [ConfigurationKey: String] = [:]) {
        self.configFile = configFile
        self.settings = settings
    }

    /// `serve --config FILE`, the settings' flags (in the table's order), then `extraArguments`.
    public var arguments: [String] {
        ["serve", "--config", configFile]
            + ConfigurationKey.allCases.flatMap { key in settings[key].map { ["--" + key.flag, $0] } ?? [] }
            + extraArguments
    }

    /// The settings by key name, as the service's loader takes its flags.
    public var flags: [String: String] {
        Dictionary(uniqueKeysWithValues: settings.map { ($0.key.name, $0.value) })
    }

    /// Ours without `FLEETFENCE_*` variables.
    public var environment: [String: String] {
        ChildEnvironment.withoutFleetFenceVariables()
    }

    /// The config file's text: `configText`, or an empty file, `{}`, since the service refuses a
    /// file without a top-level mapping.
    public var configFileText: String {
        configText ?? "# every setting of this run is a flag\n{}\n"
    }

    public func writeConfigFile() throws {
        try configFileText.write(toFile: configFile, atomically: true, encoding: .utf8)
    }
}
