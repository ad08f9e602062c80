import ArgumentParser
import FleetFenceService
import FleetFenceSettings

/// The flags of `fleetfence serve`, one per configuration key. Every flag is optional: an absent flag
/// leaves the key to the environment, the config file or the default (see ConfigurationLoader).
/// Values stay strings here so that the loader validates every layer alike and names the flag it came from.
/// There is deliberately no password flag: a password on the command line shows in `ps`.
struct ServeOptions: ParsableArguments {
    @Option(
        name: .customLong("config"),
        help: ArgumentHelp(
            "YAML config file (default \(ServiceConfiguration.defaultConfigFile), skipped when absent; a named file must exist)",
            valueName: "file"))
    var configFile: String?

    @Option(name: flag(.brokerURL), help: help(.brokerURL))
    var brokerURL: String?

    @Option(name: flag(.username), help: help(.username))
    var username: String?

    @Option(name: flag(.passwordFile), help: help(.passwordFile))
    var passwordFile: String?

    @Option(name: flag(.caFile), help: help(.caFile))
    var caFile: String?

    @Option(name: flag(.clientID), help: help(.clientID))
    var clientID: String?

    @Option(name: flag(.positionTopics), help: help(.positionTopics))
    var positionTopics: String?

    @Option(name: flag(.prefix), help: help(.prefix))
    var prefix: String?

    @Option(name: flag(.fencesFile), help: help(.fencesFile))
    var fencesFile: String?

    @Option(name: flag(.journalPath), help: help(.journalPath))
    var journalPath: String?

    @Option(name: flag(.debounce), help: help(.debounce))
    var debounce: String?

    @Option(name: flag(.hysteresis), help: help(.hysteresis))
    var hysteresis: String?

    @Option(name: flag(.minRadius), help: help(.minRadius))
    var minRadius: String?

    @Option(name: flag(.maxRadius), help: help(.maxRadius))
    var maxRadius: String?

    @Option(name: flag(.maxAccuracy), help: help(.maxAccuracy))
    var maxAccuracy: String?

    @Option(name: flag(.silentConfirm), help: help(.silentConfirm))
    var silentConfirm: String?

    @Option(name: flag(.statsInterval), help: help(.statsInterval))
    var statsInterval: String?

    @Option(name: flag(.logLevel), help: help(.logLevel))
    var logLevel: String?

    @Option(name: flag(.instanceName), help: help(.instanceName))
    var instanceName: String?

    @Option(name: flag(.httpListen), help: help(.httpListen))
    var httpListen: String?

    @Option(name: flag(.httpTokenFile), help: help(.httpTokenFile))
    var httpTokenFile: String?

    @Option(name: flag(.httpTilesURL), help: help(.httpTilesURL))
    var httpTilesURL: String?

    @Option(name: flag(.homeAssistant), help: help(.homeAssistant))
    var homeAssistant: String?

    @Option(name: flag(.homeAssistantPrefix), help: help(.homeAssistantPrefix))
    var homeAssistantPrefix: String?

    @Option(name: flag(.ownTracksTransitions), help: help(.ownTracksTransitions))
    var ownTracksTransitions: String?

    @Option(name: flag(.maxFuture), help: help(.maxFuture))
    var maxFuture: String?

    @Option(name: flag(.forgetAfter), help: help(.forgetAfter))
    var forgetAfter: String?

    @Option(name: flag(.lateWindow), help: help(.lateWindow))
    var lateWindow: String?

    @Option(name: flag(.retentionDays), help: help(.retentionDays))
    var retentionDays: String?

    @Option(name: flag(.traccarTopics), help: help(.traccarTopics))
    var traccarTopics: String?

    /// The flags that were given, by key, for `ConfigurationLoader.load(flags:configFile:)`.
    ///
    /// Each flag's property is named after its key's case, so that the keys are found here by
    /// name rather than listed once more; a key without its property stops the command before
    /// anything is read, rather than its flag being silently ignored.
    var flagOverrides: [String: String] {
        let keys = Dictionary(uniqueKeysWithValues: ConfigurationKey.allCases.map { ("_\($0)", $0) })
        var found: Set<ConfigurationKey> = []
        var overrides: [String: String] = [:]
        for child in Mirror(reflecting: self).children {
            guard let label = child.label, let key = keys[label], let option = child.value as? Option<String?> else { continue }
            found.insert(key)
            if let value = option.wrappedValue { overrides[key.name] = value }
        }
        let missing = ConfigurationKey.allCases.filter { !found.contains($0) }.map(\.name)
        precondition(missing.isEmpty, "serve has no flag for \(missing.joined(separator: ", "))")
        return overrides
    }

    // Flag names and help come from ConfigurationKey, the one table the loader reads too.
    private static func flag(_ key: ConfigurationKey) -> NameSpecification {
        .customLong(key.flag)
    }

    private static func help(_ key: ConfigurationKey) -> ArgumentHelp {
        ArgumentHelp(key.help, valueName: key.valueName)
    }
}
