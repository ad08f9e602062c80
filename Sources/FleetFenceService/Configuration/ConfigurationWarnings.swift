import FleetFenceSettings

/// Settings that are accepted but probably not what the operator meant.
enum ConfigurationWarnings {
    static func collect(
        configuration: ServiceConfiguration, fileText: String?, filePath: String, environment: [String: String]
    ) -> [String] {
        var warnings: [String] = []
        if let fileText {
            var unknown: [String] = []
            // An unknown section is one warning, not one per key inside it.
            for path in YAMLKeyPaths.keyPaths(in: fileText)
            where !isKnown(path) && !unknown.contains(where: { path.hasPrefix($0 + ".") }) {
                unknown.append(path)
                warnings.append("config file \(filePath): unknown key \(path) is ignored")
            }
        }
        let variables = Set(ConfigurationKey.allCases.map(\.environmentVariable))
        for name in environment.keys.sorted() where name.hasPrefix("FLEETFENCE_") && !variables.contains(name) {
            warnings.append("environment variable \(name) is not a configuration key and is ignored")
        }
        if configuration.caFile != nil, (try? configuration.brokers().first?.tls) == false {
            warnings.append("broker.ca_file is set but broker.url is not mqtts://, so the CA file is not used")
        }
        if configuration.passwordFile != nil, configuration.username == nil {
            // MQTT 3.1.1 only sends a password together with a user name.
            warnings.append("broker.password_file is set without broker.username, so no password is sent")
        }
        return warnings
    }

    /// A key, or a section holding keys (`geofence`).
    private static func isKnown(_ path: String) -> Bool {
        // Lists of maps, read apart and checked key by key (``MappingsSection``, ``WebhookSettings``).
        if path == MappingsSection.key || path == WebhookSettings.configKey { return true }
        return ConfigurationKey.allCases.contains { $0.name == path || $0.name.hasPrefix(path + ".") }
    }
}
