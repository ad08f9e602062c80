/// Every setting of `fleetfence serve` (docs/configuration.md "Configuration", plus the `log.*` extras), one row
/// each: its key, flag, environment variable, kind, default, value name and meaning.
///
/// The one list: the loader reads it, the `serve` flags and their help are made from it, the
/// programs that start `serve` as a process (demo, benchmarks, tests) name their settings by it,
/// and a test holds the README's table to it. It depends on nothing, so that all of them can
/// import it without the service's dependencies.
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
    public enum Kind: Sendable {
        case text
        case optionalText
        /// Text whose empty value means "off" (`http.listen`): unlike optional text it has a default.
        case textOrOff
        case number
        case list
        case boolean
    }

    /// A key's built-in default.
    public enum Default: Sendable, Equatable {
        /// None: the key is unset unless a layer sets it (credentials, the instance name).
        case none
        /// This value, written as a flag would give it.
        case value(String)
        /// Worked out when the service starts, shown as this (the client id holds the host name).
        case atStart(String)
    }

    /// One row of the table.
    private struct Row {
        var flag: String
        var kind: Kind
        var `default`: Default
        /// What `serve --help` calls the flag's value.
        var valueName: String
        var summary: String
    }

    private var row: Row {
        switch self {
        case .brokerURL:
            Row(flag: "broker", kind: .list, default: .value("mqtt://127.0.0.1:1883"), valueName: "url",
                summary: "MQTT broker(s), mqtt:// or mqtts:// (TLS), host, port; several, comma-separated, are tried in order")
        case .username:
            Row(flag: "username", kind: .optionalText, default: .none, valueName: "name", summary: "broker user name")
        case .passwordFile:
            Row(flag: "password-file", kind: .optionalText, default: .none, valueName: "file",
                summary: "file holding the broker password; a password is never taken from a flag")
        case .caFile:
            Row(flag: "ca-file", kind: .optionalText, default: .none, valueName: "file", summary: "CA bundle for mqtts://")
        case .clientID:
            Row(flag: "client-id", kind: .text, default: .atStart("fleetfence-<host>"), valueName: "id",
                summary: "MQTT client id, fixed so that the broker keeps the session across restarts")
        case .positionTopics:
            Row(flag: "positions", kind: .list, default: .value("fleet/+/position"), valueName: "filters",
                summary: "position topic filters, comma-separated; the first + is the device id")
        case .prefix:
            Row(flag: "prefix", kind: .text, default: .value("fleetfence"), valueName: "topic",
                summary: "root of every topic the service writes")
        case .fencesFile:
            Row(flag: "fences", kind: .text, default: .value("Config/fences.geojson"), valueName: "file",
                summary: "fences loaded at start (GeoJSON FeatureCollection)")
        case .journalPath:
            Row(flag: "journal", kind: .text, default: .value("fleetfence.db"), valueName: "path",
                summary: "SQLite journal of transitions and device state")
        case .debounce:
            Row(flag: "debounce", kind: .number, default: .value("20"), valueName: "s",
                summary: "seconds a device must stay on the new side")
        case .hysteresis:
            Row(flag: "hysteresis", kind: .number, default: .value("10"), valueName: "m",
                summary: "metres past the boundary that count as evidence")
        case .minRadius:
            Row(flag: "min-radius", kind: .number, default: .value("20"), valueName: "m",
                summary: "radius clamp, lower bound, metres")
        case .maxRadius:
            Row(flag: "max-radius", kind: .number, default: .value("100000"), valueName: "m",
                summary: "radius clamp, upper bound, metres")
        case .maxAccuracy:
            Row(flag: "max-accuracy", kind: .number, default: .value("100"), valueName: "m",
                summary: "samples less accurate than this many metres never move a state")
        case .silentConfirm:
            Row(flag: "silent-confirm", kind: .number, default: .value("20"), valueName: "s",
                summary: "seconds of wall-clock silence after which a pending transition is confirmed")
        case .statsInterval:
            Row(flag: "stats-interval", kind: .number, default: .value("10"), valueName: "s",
                summary: "seconds between statistics log lines")
        case .logLevel:
            Row(flag: "log-level", kind: .text, default: .value("info"), valueName: "level",
                summary: "trace, debug, info, notice, warning, error or critical")
        case .instanceName:
            Row(flag: "instance", kind: .optionalText, default: .none, valueName: "name",
                summary: "this instance's name when several share a broker (one topic level); status on <prefix>/status/<name>")
        case .httpListen:
            Row(flag: "http", kind: .textOrOff, default: .value("127.0.0.1:8080"), valueName: "host:port",
                summary: "address of the HTTP interface (host:port); empty disables it; port 0 picks a free port")
        case .httpTokenFile:
            Row(flag: "http-token-file", kind: .optionalText, default: .none, valueName: "file",
                summary: "file holding a bearer token every HTTP write must present")
        case .httpTilesURL:
            Row(flag: "tiles-url", kind: .optionalText, default: .none, valueName: "template",
                summary: "{z}/{x}/{y} tile URL template for the map's base layer; none: no tiles, works offline")
        case .homeAssistant:
            Row(flag: "homeassistant", kind: .boolean, default: .value("false"), valueName: "bool",
                summary: "publish Home Assistant MQTT discovery for every device (true or false)")
        case .homeAssistantPrefix:
            Row(flag: "homeassistant-prefix", kind: .text, default: .value("homeassistant"), valueName: "topic",
                summary: "Home Assistant's discovery prefix")
        case .ownTracksTransitions:
            Row(flag: "owntracks-transitions", kind: .boolean, default: .value("true"), valueName: "bool",
                summary: "mirror alerts of OwnTracks devices as OwnTracks transition messages (true or false)")
        case .maxFuture:
            Row(flag: "max-future", kind: .number, default: .value("300"), valueName: "s",
                summary: "seconds a sample's ts may be ahead of its arrival before it is rejected")
        case .forgetAfter:
            Row(flag: "forget-after", kind: .number, default: .value("2592000"), valueName: "s",
                summary: "seconds of wall-clock silence after which a device is forgotten")
        case .lateWindow:
            Row(flag: "late-window", kind: .number, default: .value("3600"), valueName: "s",
                summary: "seconds behind a device's latest sample a late sample is still merged in event time; 0 drops every older sample")
        case .retentionDays:
            Row(flag: "retention-days", kind: .number, default: .value("90"), valueName: "days",
                summary: "days alerts are kept in the journal (by their at)")
        case .traccarTopics:
            Row(flag: "traccar-topics", kind: .list, default: .none, valueName: "filters",
                summary: "topic filters carrying Traccar's forwarded positions (forward.type=mqtt), comma-separated")
        }
    }

    /// The key as written in the README and in YAML (`geofence.debounce_s`).
    public var name: String { rawValue }

    /// `FLEETFENCE_` + key, dots to underscores, upper case: what swift-configuration's
    /// EnvironmentVariablesProvider derives from the key prefixed with `fleetfence`.
    public var environmentVariable: String {
        "FLEETFENCE_" + String(rawValue.uppercased().map { $0 == "." ? "_" : $0 })
    }

    /// The long flag of `fleetfence serve`, without dashes.
    public var flag: String { row.flag }

    public var kind: Kind { row.kind }

    public var builtInDefault: Default { row.default }

    /// The built-in default as the service takes it, the way a flag writes it; `nil` when there is
    /// none or it is worked out at start (``Default``).
    public var defaultValue: String? {
        if case .value(let value) = row.default { return value }
        return nil
    }

    /// The built-in default as shown to people: the value, `fleetfence-<host>`, or `none`.
    public var defaultDescription: String {
        switch row.default {
        case .none: "none"
        case .value(let value), .atStart(let value): value
        }
    }

    /// What `serve --help` calls the flag's value (`s`, `m`, `file`).
    public var valueName: String { row.valueName }

    /// One line on what the key means.
    public var summary: String { row.summary }

    /// Help text for the flag: meaning, key, variable and default.
    public var help: String {
        "\(summary) (key \(name), env \(environmentVariable), default \(defaultDescription))"
    }

    /// `20`, not `20.0`: numbers are written the way people write them (flags, messages, help).
    public static func format(_ value: Double) -> String {
        value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}
