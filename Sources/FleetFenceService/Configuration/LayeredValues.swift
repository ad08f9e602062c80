import Configuration
import FleetFenceSettings
import Foundation

/// A value and the layer it came from.
struct Resolved<Value> {
    var value: Value
    var layer: ConfigurationLayer
}

/// Reads keys through one ConfigReader over the layered providers and reports where each value came from.
struct LayeredValues {
    let reader: ConfigReader
    let recorder: LookupRecorder
    /// Parallel to the reader's providers: MultiProvider asks them in this order and stops at the first
    /// value or error, so the number of provider results tells which layer answered.
    let layers: [ConfigurationLayer]

    func text(_ key: ConfigurationKey) throws(ConfigurationError) -> Resolved<String>? {
        let value = reader.string(forKey: ConfigKey(key.name))
        do { return try resolve(value, key: key, expectation: "text") } catch { throw error.error }
    }

    func number(_ key: ConfigurationKey) throws(ConfigurationError) -> Resolved<Double>? {
        let value = reader.double(forKey: ConfigKey(key.name))
        do { return try resolve(value, key: key, expectation: "a number") } catch { throw error.error }
    }

    /// `true`/`false` (also `yes`/`no`, `on`/`off`, `1`/`0`), from YAML's booleans or any layer's text.
    func boolean(_ key: ConfigurationKey) throws(ConfigurationError) -> Resolved<Bool>? {
        let value = reader.bool(forKey: ConfigKey(key.name))
        do {
            return try resolve(value, key: key, expectation: "true or false")
        } catch {
            guard let text = try self.text(key) else { throw error.error }
            guard let parsed = Self.parseBoolean(text.value) else {
                throw ConfigurationError(
                    key: key.name, source: text.layer.label(for: key), message: "expected true or false, got \(text.value)")
            }
            return Resolved(value: parsed, layer: text.layer)
        }
    }

    static func parseBoolean(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "yes", "on", "1": true
        case "false", "no", "off", "0": false
        default: nil
        }
    }

    /// A YAML list, or a comma-separated string from any layer (a YAML scalar is accepted too).
    func list(_ key: ConfigurationKey) throws(ConfigurationError) -> Resolved<[String]>? {
        let value = reader.stringArray(forKey: ConfigKey(key.name))
        do {
            return try resolve(value, key: key, expectation: "a list of strings")
        } catch {
            guard case .file = error.layer, let scalar = try text(key) else { throw error.error }
            return Resolved(value: Self.splitList(scalar.value), layer: scalar.layer)
        }
    }

    static func splitList(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
    }

    private func resolve<Value>(
        _ value: Value?, key: ConfigurationKey, expectation: String
    ) throws(LayeredError) -> Resolved<Value>? {
        guard let event = recorder.take() else {
            // Not expected: the reader reports every access. Without it the layer is unknown.
            return value.map { Resolved(value: $0, layer: .builtInDefault) }
        }
        let index = event.providerResults.count - 1
        guard index >= 0, index < layers.count else { return nil }
        let layer = layers[index]
        if case .failure = event.providerResults[index].result {
            throw LayeredError(
                layer: layer,
                error: ConfigurationError(key: key.name, source: layer.label(for: key), message: "expected \(expectation)"))
        }
        guard let value else { return nil }
        return Resolved(value: value, layer: layer)
    }
}

/// A ConfigurationError that still knows its layer, so that `list` can retry a YAML scalar.
struct LayeredError: Error {
    var layer: ConfigurationLayer
    var error: ConfigurationError
}
