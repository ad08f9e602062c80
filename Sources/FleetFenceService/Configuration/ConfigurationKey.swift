import Foundation

/// Every configuration key of the contract (plus the `log.*` extras), with what each layer calls it.
///
/// One table, so that the loader, the `serve` flags and their help text cannot drift apart.
public enum ConfigurationKey: String, CaseIterable, Sendable {
    case brokerURL = "broker.url"
    case username = "broker.username"
    case passwordFile = "broker.password_file"
    case caFile = "broker.ca_file"
    case clientID = "broker.client_id"
    case positionTopics = "topics.positions"
    case prefix = "topics.prefix"
    case fencesFile = "fences.file"
    case journalPath = "journal.path"
    case debounce = "geofence.debounce_s"
    case hysteresis = "geofence.hysteresis_m"
    case minRadius = "geofence.min_radius_m"
    case maxRadius = "geofence.max_radius_m"
    case maxAccuracy = "geofence.max_accuracy_m"
    case silentConfirm = "geofence.silent_confirm_s"
    /// Extra: seconds between the service's periodic statistics log lines.
    case statsInterval = "log.stats_interval_s"
    /// Extra: swift-log level name (`trace` ... `critical`).
    case logLevel = "log.level"

    /// How a value is written: the loader converts and validates by kind.
    enum Kind {
        case text
        case optionalText
        case number
        case list
    }

    /// The key as written in the contract and in YAML (`geofence.debounce_s`).
    public var name: String { rawValue }

    /// `FLEETFENCE_` + key, dots to underscores, upper case: what EnvironmentVariablesProvider derives
    /// from the key prefixed with `fleetfence`.
    public var environmentVariable: String {
        "FLEETFENCE_" + rawValue.uppercased().replacingOccurrences(of: ".", with: "_")
    }

    /// The long flag of `fleetfence serve`, without dashes.
    public var flag: String {
        switch self {
        case .brokerURL: "broker"
        case .username: "username"
        case .passwordFile: "password-file"
        case .caFile: "ca-file"
        case .clientID: "client-id"
        case .positionTopics: "positions"
        case .prefix: "prefix"
        case .fencesFile: "fences"
        case .journalPath: "journal"
        case .debounce: "debounce"
        case .hysteresis: "hysteresis"
        case .minRadius: "min-radius"
        case .maxRadius: "max-radius"
        case .maxAccuracy: "max-accuracy"
        case .silentConfirm: "silent-confirm"
        case .statsInterval: "stats-interval"
        case .logLevel: "log-level"
        }
    }

    /// The built-in default as shown to people.
    public var defaultDescription: String {
        switch self {
        case .brokerURL: ServiceConfiguration.Defaults.brokerURL
        case .username, .passwordFile, .caFile: "none"
        case .clientID: "fleetfence-<host>"
        case .positionTopics: ServiceConfiguration.Defaults.positionTopics.joined(separator: ",")
        case .prefix: ServiceConfiguration.Defaults.prefix
        case .fencesFile: ServiceConfiguration.Defaults.fencesFile
        case .journalPath: ServiceConfiguration.Defaults.journalPath
        case .logLevel: ServiceConfiguration.Defaults.logLevel
        case .debounce, .hysteresis, .minRadius, .maxRadius, .maxAccuracy, .silentConfirm, .statsInterval:
            Self.format(numericDefault ?? 0)
        }
    }

    /// One line on what the key means.
    public var summary: String {
        switch self {
        case .brokerURL: "MQTT broker, mqtt:// or mqtts:// (TLS), host, port"
        case .username: "broker user name"
        case .passwordFile: "file holding the broker password; a password is never taken from a flag"
        case .caFile: "CA bundle for mqtts://"
        case .clientID: "MQTT client id, fixed so that the broker keeps the session across restarts"
        case .positionTopics: "position topic filters, comma-separated; the first + is the device id"
        case .prefix: "root of every topic the service writes"
        case .fencesFile: "fences loaded at start (GeoJSON FeatureCollection)"
        case .journalPath: "SQLite journal of transitions and device state"
        case .debounce: "seconds a device must stay on the new side"
        case .hysteresis: "metres past the boundary that count as evidence"
        case .minRadius: "radius clamp, lower bound, metres"
        case .maxRadius: "radius clamp, upper bound, metres"
        case .maxAccuracy: "samples less accurate than this many metres never move a state"
        case .silentConfirm: "seconds of wall-clock silence after which a pending transition is confirmed"
        case .statsInterval: "seconds between statistics log lines"
        case .logLevel: "trace, debug, info, notice, warning, error or critical"
        }
    }

    /// Help text for the flag: meaning, key, variable and default.
    public var help: String {
        "\(summary) (key \(name), env \(environmentVariable), default \(defaultDescription))"
    }

    var kind: Kind {
        switch self {
        case .brokerURL, .clientID, .prefix, .fencesFile, .journalPath, .logLevel: .text
        case .username, .passwordFile, .caFile: .optionalText
        case .positionTopics: .list
        case .debounce, .hysteresis, .minRadius, .maxRadius, .maxAccuracy, .silentConfirm, .statsInterval: .number
        }
    }

    var numericDefault: Double? {
        let settings = ServiceConfiguration.Defaults.geofence
        return switch self {
        case .debounce: settings.debounceSeconds
        case .hysteresis: settings.hysteresisMeters
        case .minRadius: settings.minRadiusMeters
        case .maxRadius: settings.maxRadiusMeters
        case .maxAccuracy: settings.maxAccuracyMeters
        case .silentConfirm: settings.silentConfirmSeconds
        case .statsInterval: ServiceConfiguration.Defaults.statsIntervalSeconds
        default: nil
        }
    }

    /// `20`, not `20.0`: defaults are shown the way people write them.
    static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
