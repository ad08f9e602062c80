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
    /// Appended as given, after the flags.
    public var extraArguments: [String] = []
    /// The config file's text instead of the empty file: what only the file holds (`webhooks`).
    public var configText: String?
    private var values: [ServeFlag: String] = [:]

    public init(configFile: String) {
        self.configFile = configFile
    }

    /// A flag's value; `nil` leaves it out.
    public subscript(flag: ServeFlag) -> String? {
        get { values[flag] }
        set { values[flag] = newValue }
    }

    /// A number as people write it (`20`, not `20.0`; `2.5` as is).
    public mutating func set(_ flag: ServeFlag, _ number: Double) {
        values[flag] = number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    /// `serve --config FILE`, the flags set (in `ServeFlag` order), then `extraArguments`.
    public var arguments: [String] {
        ["serve", "--config", configFile]
            + ServeFlag.allCases.flatMap { flag in values[flag].map { ["--" + flag.rawValue, $0] } ?? [] }
            + extraArguments
    }

    /// Ours without `FLEETFENCE_*` variables.
    public var environment: [String: String] {
        ChildEnvironment.withoutFleetFenceVariables()
    }

    /// Writes the empty config file: `{}`, since the service refuses a file without a top-level mapping
    /// (or `configText`, when set).
    public func writeConfigFile() throws {
        let text = configText ?? "# every setting of this run is a flag\n{}\n"
        try text.write(toFile: configFile, atomically: true, encoding: .utf8)
    }
}
