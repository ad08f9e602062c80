import Foundation
import GeofenceEngine
import Logging

/// Reads every key through the layers and validates it, so that an error can name the key and its layer.
struct ConfigurationReading {
    let values: LayeredValues

    func read() throws(ConfigurationError) -> ServiceConfiguration {
        let brokerURL = try requiredText(.brokerURL)
        do {
            _ = try BrokerAddress(url: brokerURL.value)
        } catch {
            throw problem(.brokerURL, brokerURL.layer, error.message)
        }
        let caFile = try optionalText(.caFile)
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile.value) {
            throw problem(.caFile, caFile.layer, "cannot read \(caFile.value)")
        }
        let passwordFile = try optionalText(.passwordFile)
        if let passwordFile {
            // Read once now, so that a wrong path stops the start instead of the first connect.
            do {
                _ = try ServiceConfiguration(passwordFile: passwordFile.value).password()
            } catch {
                throw problem(.passwordFile, passwordFile.layer, error.message)
            }
        }

        let prefix = try requiredText(.prefix)
        if let message = TopicFilterRules.prefixProblem(prefix.value) {
            throw problem(.prefix, prefix.layer, message)
        }
        let minRadius = try number(.minRadius)
        let maxRadius = try number(.maxRadius, zeroAllowed: false)
        guard minRadius.value <= maxRadius.value else {
            throw problem(
                .minRadius, minRadius.layer,
                "\(ConfigurationKey.format(minRadius.value)) exceeds \(ConfigurationKey.maxRadius.name) "
                    + "\(ConfigurationKey.format(maxRadius.value)) (from \(maxRadius.layer.label(for: .maxRadius)))")
        }
        let geofence = GeofenceSettings(
            debounceSeconds: try number(.debounce).value,
            hysteresisMeters: try number(.hysteresis).value,
            minRadiusMeters: minRadius.value,
            maxRadiusMeters: maxRadius.value,
            maxAccuracyMeters: try number(.maxAccuracy).value,
            silentConfirmSeconds: try number(.silentConfirm).value)

        return ServiceConfiguration(
            brokerURL: brokerURL.value,
            username: try optionalText(.username)?.value,
            passwordFile: passwordFile?.value,
            caFile: caFile?.value,
            clientID: try requiredText(.clientID).value,
            positionTopics: try positionTopics(),
            prefix: prefix.value,
            fencesFile: try requiredText(.fencesFile).value,
            journalPath: try requiredText(.journalPath).value,
            geofence: geofence,
            statsIntervalSeconds: try number(.statsInterval, zeroAllowed: false).value,
            logLevel: try logLevel())
    }

    private func problem(_ key: ConfigurationKey, _ layer: ConfigurationLayer, _ message: String) -> ConfigurationError {
        ConfigurationError(key: key.name, source: layer.label(for: key), message: message)
    }

    private func requiredText(_ key: ConfigurationKey) throws(ConfigurationError) -> Resolved<String> {
        guard let text = try values.text(key) else {
            throw ConfigurationError(key: key.name, source: nil, message: "has no value")
        }
        guard !text.value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw problem(key, text.layer, "must not be empty")
        }
        return text
    }

    /// An empty value means "none" in every layer, so that a variable or flag can clear a file's setting;
    /// YAML's `~` and `null` mean none in the file.
    private func optionalText(_ key: ConfigurationKey) throws(ConfigurationError) -> Resolved<String>? {
        guard let text = try values.text(key) else { return nil }
        let trimmed = text.value.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty { return nil }
        if case .file = text.layer, trimmed == "~" || trimmed == "null" { return nil }
        return text
    }

    private func number(_ key: ConfigurationKey, zeroAllowed: Bool = true) throws(ConfigurationError) -> Resolved<Double> {
        guard let number = try values.number(key) else {
            throw ConfigurationError(key: key.name, source: nil, message: "has no value")
        }
        let value = number.value
        guard value.isFinite, zeroAllowed ? value >= 0 : value > 0 else {
            throw problem(key, number.layer, "must be a finite number \(zeroAllowed ? ">=" : ">") 0, got \(value)")
        }
        return number
    }

    private func positionTopics() throws(ConfigurationError) -> [String] {
        guard let list = try values.list(.positionTopics) else {
            throw ConfigurationError(key: ConfigurationKey.positionTopics.name, source: nil, message: "has no value")
        }
        let filters = list.value.map { $0.trimmingCharacters(in: .whitespaces) }
        guard !filters.isEmpty else {
            throw problem(.positionTopics, list.layer, "needs at least one topic filter")
        }
        var unique: [String] = []
        for filter in filters {
            if let message = TopicFilterRules.positionFilterProblem(filter) {
                throw problem(.positionTopics, list.layer, message)
            }
            // The same filter twice would deliver every position twice.
            if !unique.contains(filter) { unique.append(filter) }
        }
        return unique
    }

    private func logLevel() throws(ConfigurationError) -> String {
        let level = try requiredText(.logLevel)
        let name = level.value.trimmingCharacters(in: .whitespaces).lowercased()
        guard Logger.Level(rawValue: name) != nil else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw problem(.logLevel, level.layer, "must be one of \(names), got \(level.value)")
        }
        return name
    }
}
