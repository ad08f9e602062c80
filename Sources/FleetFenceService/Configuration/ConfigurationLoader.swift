import Configuration
import Foundation
import GeofenceEngine

/// Builds a ``ServiceConfiguration`` from the layers of docs/configuration.md "Configuration": flag > `FLEETFENCE_<KEY>` environment
/// variable > config file > built-in default.
public enum ConfigurationLoader {
    /// - Parameters:
    ///   - flags: contract key (`geofence.debounce_s`) -> the raw string given on the command line.
    ///   - environment: the process environment; `FLEETFENCE_BROKER_URL` and so on are read from it.
    ///   - configFile: the `--config` file; `nil` reads ``ServiceConfiguration/defaultConfigFile`` if it exists.
    /// - Throws: ``ConfigurationError`` naming the key and the layer of the first unusable value.
    public static func load(
        flags: [String: String],
        environment: [String: String] = ProcessInfo.processInfo.environment,
        configFile: String?
    ) async throws -> ServiceConfiguration {
        try await load(
            flags: flags, environment: environment, configFile: configFile,
            defaultConfigFile: ServiceConfiguration.defaultConfigFile)
    }

    /// The same, with the default file's path injectable (tests run where the real default exists).
    static func load(
        flags: [String: String],
        environment: [String: String],
        configFile: String?,
        defaultConfigFile: String
    ) async throws -> ServiceConfiguration {
        let file = try await ConfigFileLayer.open(explicitPath: configFile, defaultPath: defaultConfigFile)
        let recorder = LookupRecorder()
        let reader = ConfigReader(
            providers: [
                try flagProvider(flags),
                EnvironmentVariablesProvider(environmentVariables: environment).prefixKeys(with: "fleetfence"),
                file.provider,
                defaultsProvider(),
            ],
            accessReporter: recorder)
        let values = LayeredValues(
            reader: reader, recorder: recorder,
            layers: [.flag, .environment, .file(path: file.path), .builtInDefault])

        var configuration = try ConfigurationReading(values: values, mappings: file.mappings).read()
        if let text = file.text {
            configuration.webhooks = try WebhookSettings.read(fileText: text, path: file.path)
            configuration.configFile = file.path
        }
        configuration.warnings = ConfigurationWarnings.collect(
            configuration: configuration, fileText: file.text, filePath: file.path, environment: environment)
        return configuration
    }

    /// Flags arrive as strings; they are typed here so that a bad one is reported as that flag.
    private static func flagProvider(_ flags: [String: String]) throws(ConfigurationError) -> InMemoryProvider {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (name, raw) in flags {
            guard let key = ConfigurationKey(rawValue: name) else {
                throw ConfigurationError(key: name, source: "flags", message: "not a configuration key")
            }
            let content: ConfigContent
            switch key.kind {
            case .text, .optionalText, .textOrOff:
                content = .string(raw)
            case .boolean:
                guard let value = LayeredValues.parseBoolean(raw) else {
                    throw ConfigurationError(
                        key: name, source: ConfigurationLayer.flag.label(for: key), message: "expected true or false, got \(raw)")
                }
                content = .bool(value)
            case .list:
                content = .stringArray(LayeredValues.splitList(raw))
            case .number:
                guard let number = Double(raw.trimmingCharacters(in: .whitespaces)) else {
                    throw ConfigurationError(
                        key: name, source: ConfigurationLayer.flag.label(for: key), message: "expected a number, got \(raw)")
                }
                content = .double(number)
            }
            values[AbsoluteConfigKey(ConfigKey(name))] = ConfigValue(content, isSecret: false)
        }
        return InMemoryProvider(name: "flags", values: values)
    }

    /// The bottom layer. Keys without a default (credentials, CA file) are simply absent.
    private static func defaultsProvider() -> InMemoryProvider {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        func set(_ key: ConfigurationKey, _ content: ConfigContent) {
            values[AbsoluteConfigKey(ConfigKey(key.name))] = ConfigValue(content, isSecret: false)
        }
        typealias Defaults = ServiceConfiguration.Defaults
        set(.brokerURL, .stringArray([Defaults.brokerURL]))
        set(.httpListen, .string(Defaults.httpListen))
        set(.homeAssistant, .bool(false))
        set(.homeAssistantPrefix, .string(Defaults.homeAssistantPrefix))
        set(.ownTracksTransitions, .bool(true))
        set(.clientID, .string(Defaults.clientID))
        set(.positionTopics, .stringArray(Defaults.positionTopics))
        set(.prefix, .string(Defaults.prefix))
        set(.fencesFile, .string(Defaults.fencesFile))
        set(.journalPath, .string(Defaults.journalPath))
        set(.logLevel, .string(Defaults.logLevel))
        for key in ConfigurationKey.allCases {
            if let number = key.numericDefault { set(key, .double(number)) }
        }
        return InMemoryProvider(name: "defaults", values: values)
    }
}
