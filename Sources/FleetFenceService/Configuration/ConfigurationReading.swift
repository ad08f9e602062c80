import FleetFenceCodecs
import FleetFenceSettings
import Foundation
import GeofenceEngine
import Logging
import MQTT

/// Reads every key through the layers and validates it, so that an error can name the key and its layer.
struct ConfigurationReading {
    let values: LayeredValues
    /// `inputs.mappings`, read from the config file alone (it is a list of maps; docs/trackers.md "Connecting trackers").
    var mappings: [PositionMapping] = []

    func read() throws(ConfigurationError) -> ServiceConfiguration {
        let brokerURLs = try brokers()
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
            silentConfirmSeconds: try number(.silentConfirm).value,
            maxFutureSeconds: try number(.maxFuture).value,
            forgetAfterSeconds: try number(.forgetAfter, zeroAllowed: false).value,
            lateWindowSeconds: try number(.lateWindow).value)

        let positionTopics = try positionTopics()
        let inputs = try inputs(positionTopics: positionTopics, prefix: prefix.value)
        return ServiceConfiguration(
            brokerURLs: brokerURLs,
            username: try optionalText(.username)?.value,
            passwordFile: passwordFile?.value,
            caFile: caFile?.value,
            clientID: try clientID(),
            positionTopics: positionTopics,
            prefix: prefix.value,
            fencesFile: try requiredText(.fencesFile).value,
            journalPath: try requiredText(.journalPath).value,
            geofence: geofence,
            statsIntervalSeconds: try number(.statsInterval, zeroAllowed: false).value,
            logLevel: try logLevel(),
            instanceName: try topicLevel(.instanceName),
            http: ServiceConfiguration.HTTPSettings(
                listen: try httpListen(), tokenFile: try readableFile(.httpTokenFile), tilesURL: try tilesURL()),
            integrations: ServiceConfiguration.Integrations(
                homeAssistant: try boolean(.homeAssistant),
                homeAssistantPrefix: try homeAssistantPrefix(),
                ownTracksTransitions: try boolean(.ownTracksTransitions)),
            retentionDays: try number(.retentionDays, zeroAllowed: false).value,
            inputs: inputs)
    }

    /// `broker.client_id`; by default `fleetfence-<host>`, and `fleetfence-<host>-<instance>` for a
    /// named instance, so that two instances on one machine never take each other's session.
    private func clientID() throws(ConfigurationError) -> String {
        let id = try requiredText(.clientID)
        guard case .builtInDefault = id.layer, let instance = try topicLevel(.instanceName) else { return id.value }
        return "\(id.value)-\(instance)"
    }

    /// `broker.url`: one URL or several of one cluster, all plain or all TLS.
    private func brokers() throws(ConfigurationError) -> [String] {
        guard let list = try values.list(.brokerURL) else {
            throw ConfigurationError(key: ConfigurationKey.brokerURL.name, source: nil, message: "has no value")
        }
        let texts = list.value.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !texts.isEmpty else { throw problem(.brokerURL, list.layer, "needs at least one broker URL") }
        var schemes = Set<Bool>()
        for text in texts {
            do {
                schemes.insert(try MQTTURL(parsing: text).tls)
            } catch {
                throw problem(.brokerURL, list.layer, error.description)
            }
        }
        if schemes.count > 1 { throw problem(.brokerURL, list.layer, "mixes mqtt:// and mqtts:// URLs") }
        return texts
    }

    /// A value that becomes one topic level: no `/`, `+`, `#` or NUL.
    private func topicLevel(_ key: ConfigurationKey) throws(ConfigurationError) -> String? {
        guard let text = try optionalText(key) else { return nil }
        if text.value.contains(where: { "/+#\u{0}".contains($0) }) {
            throw problem(key, text.layer, "must be one topic level (no /, + or #), got \(text.value)")
        }
        return text.value
    }

    /// `host:port`, or nil when empty (the interface is off).
    private func httpListen() throws(ConfigurationError) -> String? {
        guard let text = try values.text(.httpListen) else { return nil }
        let value = text.value.trimmingCharacters(in: .whitespaces)
        if value.isEmpty { return nil }
        if case .file = text.layer, value == "~" || value == "null" { return nil }
        guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
            (0...65_535).contains(port), colon > value.startIndex
        else {
            throw problem(.httpListen, text.layer, "expected host:port (port 0 picks a free one), got \(value)")
        }
        return value
    }

    private func readableFile(_ key: ConfigurationKey) throws(ConfigurationError) -> String? {
        guard let file = try optionalText(key) else { return nil }
        if !FileManager.default.isReadableFile(atPath: file.value) {
            throw problem(key, file.layer, "cannot read \(file.value)")
        }
        return file.value
    }

    private func tilesURL() throws(ConfigurationError) -> String? {
        guard let url = try optionalText(.httpTilesURL) else { return nil }
        guard url.value.contains("{z}"), url.value.contains("{x}"), url.value.contains("{y}") else {
            throw problem(.httpTilesURL, url.layer, "expected a template with {z}, {x} and {y}, got \(url.value)")
        }
        return url.value
    }

    private func homeAssistantPrefix() throws(ConfigurationError) -> String {
        let prefix = try requiredText(.homeAssistantPrefix)
        if let message = TopicFilterRules.prefixProblem(prefix.value) {
            throw problem(.homeAssistantPrefix, prefix.layer, message)
        }
        return prefix.value
    }

    private func boolean(_ key: ConfigurationKey) throws(ConfigurationError) -> Bool {
        guard let value = try values.boolean(key) else {
            throw ConfigurationError(key: key.name, source: nil, message: "has no value")
        }
        return value.value
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
