import Configuration
import FleetFenceSettings
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
                try defaultsProvider(),
            ],
            accessReporter: recorder)
        let values = LayeredValues(
            reader: reader, recorder: recorder,
            layers: [.flag, .environment, .file(path: file.path), .builtInDefault])

        // A section that is not a map (`geofence: 5`) was read as no keys at all: every default,
        // silently, where a key of the wrong type is refused.
        if let text = file.text, let wrong = YAMLKeyPaths.nonMappings(in: text, sections: Self.isSection).first {
            throw ConfigurationError(
                key: wrong.path, source: "config file \(file.path)", message: "expected a map of its keys, got \(wrong.found)")
        }
        var configuration = try ConfigurationReading(values: values, mappings: file.mappings).read()
        if let text = file.text {
            configuration.webhooks = try WebhookSettings.read(fileText: text, path: file.path)
            configuration.configFile = file.path
        }
        configuration.warnings = ConfigurationWarnings.collect(
            configuration: configuration, fileText: file.text, filePath: file.path, environment: environment)
        return configuration
    }

    /// A section of keys (`geofence`, `broker`), not a key itself; the lists of maps (`inputs.mappings`,
    /// `webhooks`) are read, and checked, apart.
    private static func isSection(_ path: String) -> Bool {
        path != MappingsSection.key && path != WebhookSettings.configKey
            && !ConfigurationKey.allCases.contains { $0.name == path }
            && ConfigurationKey.allCases.contains { $0.name.hasPrefix(path + ".") }
    }

    /// Flags arrive as strings; they are typed here so that a bad one is reported as that flag.
    private static func flagProvider(_ flags: [String: String]) throws(ConfigurationError) -> InMemoryProvider {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (name, raw) in flags {
            guard let key = ConfigurationKey(rawValue: name) else {
                throw ConfigurationError(key: name, source: "flags", message: "not a configuration key")
            }
            values[AbsoluteConfigKey(ConfigKey(name))] = ConfigValue(
                try content(raw, of: key, layer: .flag), isSecret: false)
        }
        return InMemoryProvider(name: "flags", values: values)
    }

    /// The bottom layer: the table's defaults, written and typed as flags are. Keys without a
    /// default (credentials, CA file) are simply absent; the client id holds this host's name.
    private static func defaultsProvider() throws(ConfigurationError) -> InMemoryProvider {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for key in ConfigurationKey.allCases {
            let raw: String
            switch key.builtInDefault {
            case .none: continue
            case .value(let value): raw = value
            case .atStart:
                precondition(key == .clientID, "\(key.name): its start-time default is not worked out here")
                raw = ServiceConfiguration.Defaults.clientID
            }
            values[AbsoluteConfigKey(ConfigKey(key.name))] = ConfigValue(
                try content(raw, of: key, layer: .builtInDefault), isSecret: false)
        }
        return InMemoryProvider(name: "defaults", values: values)
    }

    /// A value written as text (a flag, a default), typed by its key's kind.
    private static func content(
        _ raw: String, of key: ConfigurationKey, layer: ConfigurationLayer
    ) throws(ConfigurationError) -> ConfigContent {
        switch key.kind {
        case .text, .optionalText, .textOrOff:
            return .string(raw)
        case .boolean:
            guard let value = LayeredValues.parseBoolean(raw) else {
                throw ConfigurationError(
                    key: key.name, source: layer.label(for: key), message: "expected true or false, got \(raw)")
            }
            return .bool(value)
        case .list:
            return .stringArray(LayeredValues.splitList(raw))
        case .number:
            guard let number = Double(raw.trimmingCharacters(in: .whitespaces)) else {
                throw ConfigurationError(
                    key: key.name, source: layer.label(for: key), message: "expected a number, got \(raw)")
            }
            return .double(number)
        }
    }
}
