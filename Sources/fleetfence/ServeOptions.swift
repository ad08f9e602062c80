import ArgumentParser
import FleetFenceService

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

    @Option(name: flag(.brokerURL), help: help(.brokerURL, "url"))
    var broker: String?

    @Option(name: flag(.username), help: help(.username, "name"))
    var username: String?

    @Option(name: flag(.passwordFile), help: help(.passwordFile, "file"))
    var passwordFile: String?

    @Option(name: flag(.caFile), help: help(.caFile, "file"))
    var caFile: String?

    @Option(name: flag(.clientID), help: help(.clientID, "id"))
    var clientID: String?

    @Option(name: flag(.positionTopics), help: help(.positionTopics, "filters"))
    var positions: String?

    @Option(name: flag(.prefix), help: help(.prefix, "topic"))
    var prefix: String?

    @Option(name: flag(.fencesFile), help: help(.fencesFile, "file"))
    var fences: String?

    @Option(name: flag(.journalPath), help: help(.journalPath, "path"))
    var journal: String?

    @Option(name: flag(.debounce), help: help(.debounce, "s"))
    var debounce: String?

    @Option(name: flag(.hysteresis), help: help(.hysteresis, "m"))
    var hysteresis: String?

    @Option(name: flag(.minRadius), help: help(.minRadius, "m"))
    var minRadius: String?

    @Option(name: flag(.maxRadius), help: help(.maxRadius, "m"))
    var maxRadius: String?

    @Option(name: flag(.maxAccuracy), help: help(.maxAccuracy, "m"))
    var maxAccuracy: String?

    @Option(name: flag(.silentConfirm), help: help(.silentConfirm, "s"))
    var silentConfirm: String?

    @Option(name: flag(.statsInterval), help: help(.statsInterval, "s"))
    var statsInterval: String?

    @Option(name: flag(.logLevel), help: help(.logLevel, "level"))
    var logLevel: String?

    @Option(name: flag(.instanceName), help: help(.instanceName, "name"))
    var instance: String?

    @Option(name: flag(.httpListen), help: help(.httpListen, "host:port"))
    var http: String?

    @Option(name: flag(.httpTokenFile), help: help(.httpTokenFile, "file"))
    var httpTokenFile: String?

    @Option(name: flag(.httpTilesURL), help: help(.httpTilesURL, "template"))
    var tilesURL: String?

    @Option(name: flag(.homeAssistant), help: help(.homeAssistant, "bool"))
    var homeAssistant: String?

    @Option(name: flag(.homeAssistantPrefix), help: help(.homeAssistantPrefix, "topic"))
    var homeAssistantPrefix: String?

    @Option(name: flag(.ownTracksTransitions), help: help(.ownTracksTransitions, "bool"))
    var ownTracksTransitions: String?

    @Option(name: flag(.maxFuture), help: help(.maxFuture, "s"))
    var maxFuture: String?

    @Option(name: flag(.forgetAfter), help: help(.forgetAfter, "s"))
    var forgetAfter: String?

    @Option(name: flag(.lateWindow), help: help(.lateWindow, "s"))
    var lateWindow: String?

    @Option(name: flag(.retentionDays), help: help(.retentionDays, "days"))
    var retentionDays: String?

    @Option(name: flag(.traccarTopics), help: help(.traccarTopics, "filters"))
    var traccarTopics: String?

    /// The flags that were given, by contract key, for `ConfigurationLoader.load(flags:configFile:)`.
    var flagOverrides: [String: String] {
        let given: [(ConfigurationKey, String?)] = [
            (.brokerURL, broker), (.username, username), (.passwordFile, passwordFile), (.caFile, caFile),
            (.clientID, clientID), (.positionTopics, positions), (.prefix, prefix), (.fencesFile, fences),
            (.journalPath, journal), (.debounce, debounce), (.hysteresis, hysteresis), (.minRadius, minRadius),
            (.maxRadius, maxRadius), (.maxAccuracy, maxAccuracy), (.silentConfirm, silentConfirm),
            (.statsInterval, statsInterval), (.logLevel, logLevel), (.instanceName, instance), (.httpListen, http),
            (.httpTokenFile, httpTokenFile), (.httpTilesURL, tilesURL), (.homeAssistant, homeAssistant),
            (.homeAssistantPrefix, homeAssistantPrefix), (.ownTracksTransitions, ownTracksTransitions),
            (.maxFuture, maxFuture), (.forgetAfter, forgetAfter), (.retentionDays, retentionDays),
            (.lateWindow, lateWindow),
            (.traccarTopics, traccarTopics),
        ]
        var overrides: [String: String] = [:]
        for case let (key, value?) in given { overrides[key.name] = value }
        return overrides
    }

    // Flag names and help come from ConfigurationKey, the one table the loader reads too.
    private static func flag(_ key: ConfigurationKey) -> NameSpecification {
        .customLong(key.flag)
    }

    private static func help(_ key: ConfigurationKey, _ valueName: String) -> ArgumentHelp {
        ArgumentHelp(key.help, valueName: valueName)
    }
}
