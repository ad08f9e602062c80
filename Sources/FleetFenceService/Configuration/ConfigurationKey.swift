import Foundation

/// Every configuration key (docs/configuration.md "Configuration") (plus the `log.*` extras), with what each layer calls it.
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
    case instanceName = "instance.name"
    case httpListen = "http.listen"
    case httpTokenFile = "http.token_file"
    case httpTilesURL = "http.tiles_url"
    case homeAssistant = "integrations.homeassistant"
    case homeAssistantPrefix = "integrations.homeassistant_prefix"
    case ownTracksTransitions = "integrations.owntracks_transitions"
    case maxFuture = "geofence.max_future_s"
    case forgetAfter = "geofence.forget_after_s"
    case lateWindow = "geofence.late_window_s"
    case retentionDays = "journal.retention_days"
    case traccarTopics = "inputs.traccar_topics"
    /// Extra: swift-log level name (`trace` ... `critical`).
    case logLevel = "log.level"

    /// How a value is written: the loader converts and validates by kind.
    enum Kind {
        case text
        case optionalText
        /// Text whose empty value means "off" (`http.listen`): unlike optional text it has a default.
        case textOrOff
        case number
        case list
        case boolean
    }

    /// The key as written in docs/configuration.md "Configuration" and in YAML (`geofence.debounce_s`).
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
        case .instanceName: "instance"
        case .httpListen: "http"
        case .httpTokenFile: "http-token-file"
        case .httpTilesURL: "tiles-url"
        case .homeAssistant: "homeassistant"
        case .homeAssistantPrefix: "homeassistant-prefix"
        case .ownTracksTransitions: "owntracks-transitions"
        case .maxFuture: "max-future"
        case .forgetAfter: "forget-after"
        case .lateWindow: "late-window"
        case .retentionDays: "retention-days"
        case .traccarTopics: "traccar-topics"
        }
    }

    /// The built-in default as shown to people.
    public var defaultDescription: String {
        switch self {
        case .brokerURL: ServiceConfiguration.Defaults.brokerURL
        case .username, .passwordFile, .caFile, .instanceName, .httpTokenFile, .httpTilesURL, .traccarTopics: "none"
        case .httpListen: ServiceConfiguration.Defaults.httpListen
        case .homeAssistant: "false"
        case .homeAssistantPrefix: ServiceConfiguration.Defaults.homeAssistantPrefix
        case .ownTracksTransitions: "true"
        case .clientID: "fleetfence-<host>"
        case .positionTopics: ServiceConfiguration.Defaults.positionTopics.joined(separator: ",")
        case .prefix: ServiceConfiguration.Defaults.prefix
        case .fencesFile: ServiceConfiguration.Defaults.fencesFile
        case .journalPath: ServiceConfiguration.Defaults.journalPath
        case .logLevel: ServiceConfiguration.Defaults.logLevel
        case .debounce, .hysteresis, .minRadius, .maxRadius, .maxAccuracy, .silentConfirm, .statsInterval, .maxFuture,
            .forgetAfter, .retentionDays, .lateWindow:
            Self.format(numericDefault ?? 0)
        }
    }

    /// One line on what the key means.
    public var summary: String {
        switch self {
        case .brokerURL: "MQTT broker(s), mqtt:// or mqtts:// (TLS), host, port; several, comma-separated, are tried in order"
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
        case .instanceName: "this instance's name when several share a broker (one topic level); status on <prefix>/status/<name>"
        case .httpListen: "address of the HTTP interface (host:port); empty disables it; port 0 picks a free port"
        case .httpTokenFile: "file holding a bearer token every HTTP write must present"
        case .httpTilesURL: "{z}/{x}/{y} tile URL template for the map's base layer; none: no tiles, works offline"
        case .homeAssistant: "publish Home Assistant MQTT discovery for every device (true or false)"
        case .homeAssistantPrefix: "Home Assistant's discovery prefix"
        case .ownTracksTransitions: "mirror alerts of OwnTracks devices as OwnTracks transition messages (true or false)"
        case .maxFuture: "seconds a sample's ts may be ahead of its arrival before it is rejected"
        case .forgetAfter: "seconds of wall-clock silence after which a device is forgotten"
        case .lateWindow: "seconds behind a device's latest sample a late sample is still merged in event time; 0 drops every older sample"
        case .retentionDays: "days alerts are kept in the journal (by their at)"
        case .traccarTopics: "topic filters carrying Traccar's forwarded positions (forward.type=mqtt), comma-separated"
        }
    }

    /// Help text for the flag: meaning, key, variable and default.
    public var help: String {
        "\(summary) (key \(name), env \(environmentVariable), default \(defaultDescription))"
    }

    var kind: Kind {
        switch self {
        case .clientID, .prefix, .fencesFile, .journalPath, .logLevel, .homeAssistantPrefix: .text
        case .username, .passwordFile, .caFile, .instanceName, .httpTokenFile, .httpTilesURL: .optionalText
        case .httpListen: .textOrOff
        case .positionTopics, .brokerURL, .traccarTopics: .list
        case .debounce, .hysteresis, .minRadius, .maxRadius, .maxAccuracy, .silentConfirm, .statsInterval, .maxFuture,
            .forgetAfter, .retentionDays, .lateWindow:
            .number
        case .homeAssistant, .ownTracksTransitions: .boolean
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
        case .maxFuture: settings.maxFutureSeconds
        case .forgetAfter: settings.forgetAfterSeconds
        case .lateWindow: settings.lateWindowSeconds
        case .retentionDays: ServiceConfiguration.Defaults.retentionDays
        default: nil
        }
    }

    /// `20`, not `20.0`: defaults are shown the way people write them.
    static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
