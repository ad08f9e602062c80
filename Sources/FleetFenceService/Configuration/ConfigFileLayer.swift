import Configuration
import FleetFenceCodecs
import Foundation

/// The config file layer: the YAML provider plus the file's text, which the unknown-key warnings read.
struct ConfigFileLayer {
    var path: String
    var provider: any ConfigProvider
    /// `nil` when the default file is absent.
    var text: String?
    /// `inputs.mappings`, which only the file can set.
    var mappings: [PositionMapping] = []

    /// A missing default file means built-in defaults; a missing `--config` file is an error.
    static func open(explicitPath: String?, defaultPath: String) async throws(ConfigurationError) -> ConfigFileLayer {
        let path = explicitPath ?? defaultPath
        let source = explicitPath == nil ? "config file \(path)" : "flag --config"
        guard FileManager.default.fileExists(atPath: path) else {
            if explicitPath != nil {
                throw ConfigurationError(key: nil, source: source, message: "config file \(path) does not exist")
            }
            return ConfigFileLayer(path: path, provider: try await provider(path, allowMissing: true), text: nil)
        }
        let text: String
        do {
            text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        } catch {
            throw ConfigurationError(key: nil, source: source, message: "cannot read \(path): \(error.localizedDescription)")
        }
        // An empty or comment-only file is a file that sets nothing, as a user would expect; the
        // YAML provider would refuse it for not holding a mapping.
        if !hasContent(text) {
            return ConfigFileLayer(path: path, provider: InMemoryProvider(values: [:]), text: text)
        }
        // The lists of maps (`inputs.mappings`, `webhooks`) are read apart with Yams (docs/trackers.md
        // "Connecting trackers" and docs/webhooks.md "Webhooks"); the provider gets the rest, from memory.
        let section = try MappingsSection.read(text, source: source)
        let withoutMappings = section.remainingYAML ?? text
        let rest = YAMLTextProvider.withoutWebhooks(withoutMappings) ?? section.remainingYAML
        guard let rest else {
            return ConfigFileLayer(path: path, provider: try await provider(path, allowMissing: false), text: text)
        }
        let provider: any ConfigProvider
        if hasContent(rest) {
            do {
                provider = try YAMLTextProvider(text: rest, providerName: "config file \(path)")
            } catch {
                throw ConfigurationError(key: nil, source: "config file \(path)", message: "not usable YAML: \(error)")
            }
        } else {
            provider = InMemoryProvider(values: [:])
        }
        return ConfigFileLayer(path: path, provider: provider, text: text, mappings: section.mappings)
    }

    private static func hasContent(_ yaml: String) -> Bool {
        yaml.split(whereSeparator: \.isNewline).contains { line in
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            return !trimmed.isEmpty && !trimmed.hasPrefix("#") && trimmed != "---" && trimmed != "..."
        }
    }

    private static func provider(_ path: String, allowMissing: Bool) async throws(ConfigurationError)
        -> FileProvider<YAMLSnapshot>
    {
        do {
            return try await FileProvider<YAMLSnapshot>(filePath: .init(path), allowMissing: allowMissing)
        } catch {
            throw ConfigurationError(key: nil, source: "config file \(path)", message: "not usable YAML: \(error)")
        }
    }
}
