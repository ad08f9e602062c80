import FleetFenceCodecs
import FleetFenceSettings
import Foundation
import GeofenceEngine
import MQTT

/// The service's settings after all layers (flag > environment > file > default) are applied and validated.
/// Build one with ``ConfigurationLoader/load(flags:environment:configFile:)``.
public struct ServiceConfiguration: Sendable, Equatable {
    /// The broker, or several nodes of one cluster tried in order (docs/several-instances.md "Several instances").
    public var brokerURLs: [String]
    public var username: String?
    /// The password itself is read on demand by ``password()``, so it never sits in a value that gets logged.
    public var passwordFile: String?
    public var caFile: String?
    public var clientID: String
    public var positionTopics: [String]
    public var prefix: String
    public var fencesFile: String
    /// Relative paths are from the working directory.
    public var journalPath: String
    public var geofence: GeofenceSettings
    /// `log.stats_interval_s`.
    public var statsIntervalSeconds: Double
    /// `log.level`, lower case, a swift-log level name.
    public var logLevel: String
    /// `instance.name`: one topic level; the status topic becomes `<prefix>/status/<name>`.
    public var instanceName: String?
    public var http: HTTPSettings
    public var integrations: Integrations
    /// `journal.retention_days`: alerts older than this (by `at`) are pruned.
    public var retentionDays: Double
    /// `inputs.*`: positions in other formats than the native one (docs/trackers.md "Connecting trackers").
    public var inputs: Inputs

    /// The `inputs.*` keys.
    public struct Inputs: Sendable, Equatable {
        /// `inputs.traccar_topics`: filters carrying Traccar's forwarded positions.
        public var traccarTopics: [String]
        /// `inputs.mappings`: custom JSON formats, each on its own filter.
        public var mappings: [PositionMapping]

        public init(traccarTopics: [String] = [], mappings: [PositionMapping] = []) {
            self.traccarTopics = traccarTopics
            self.mappings = mappings
        }

        /// Every filter of these inputs, to subscribe to.
        public var topics: [String] { traccarTopics + mappings.map(\.topic) }
    }
    /// The config file's `webhooks` list (docs/webhooks.md "Webhooks").
    public var webhooks: [WebhookSettings] = []
    /// The config file read, if there was one: SIGHUP reads its `webhooks` again.
    public var configFile: String?
    /// Not a configuration key: the webhooks' retry waits (1 s to 5 min); tests shorten them.
    public var webhookBackoff = WebhookBackoff()

    /// The `http.*` keys.
    public struct HTTPSettings: Sendable, Equatable {
        /// `host:port`; `nil` when the interface is off (`--http ''`).
        public var listen: String?
        public var tokenFile: String?
        public var tilesURL: String?

        public init(listen: String? = Defaults.httpListen, tokenFile: String? = nil, tilesURL: String? = nil) {
            self.listen = listen
            self.tokenFile = tokenFile
            self.tilesURL = tilesURL
        }
    }

    /// The `integrations.*` keys.
    public struct Integrations: Sendable, Equatable {
        public var homeAssistant: Bool
        public var homeAssistantPrefix: String
        public var ownTracksTransitions: Bool

        public init(
            homeAssistant: Bool = Defaults.homeAssistant, homeAssistantPrefix: String = Defaults.homeAssistantPrefix,
            ownTracksTransitions: Bool = Defaults.ownTracksTransitions
        ) {
            self.homeAssistant = homeAssistant
            self.homeAssistantPrefix = homeAssistantPrefix
            self.ownTracksTransitions = ownTracksTransitions
        }
    }
    /// Things that are allowed but probably not meant (unknown keys, credentials that will not be used).
    /// The loader cannot log them: the logger is configured from this value. Log them once it exists.
    public var warnings: [String]

    /// The built-in defaults as typed values, read from the table (``ConfigurationKey``) that the
    /// loader's bottom layer reads too.
    public enum Defaults {
        public static let brokerURL = text(.brokerURL)
        public static let positionTopics = LayeredValues.splitList(text(.positionTopics))
        public static let prefix = text(.prefix)
        public static let fencesFile = text(.fencesFile)
        public static let journalPath = text(.journalPath)
        public static let geofence = GeofenceSettings(
            debounceSeconds: number(.debounce), hysteresisMeters: number(.hysteresis), minRadiusMeters: number(.minRadius),
            maxRadiusMeters: number(.maxRadius), maxAccuracyMeters: number(.maxAccuracy),
            silentConfirmSeconds: number(.silentConfirm), maxFutureSeconds: number(.maxFuture),
            forgetAfterSeconds: number(.forgetAfter), lateWindowSeconds: number(.lateWindow))
        public static let statsIntervalSeconds = number(.statsInterval)
        public static let logLevel = text(.logLevel)
        public static let httpListen = text(.httpListen)
        public static let homeAssistant = boolean(.homeAssistant)
        public static let homeAssistantPrefix = text(.homeAssistantPrefix)
        public static let ownTracksTransitions = boolean(.ownTracksTransitions)
        public static let retentionDays = number(.retentionDays)
        /// `fleetfence-<host>`: stable across restarts of the same machine, distinct between machines.
        public static var clientID: String { "fleetfence-\(HostName.current)" }

        // A default the table writes wrongly is a programming error; ConfigurationTests loads them all.
        private static func text(_ key: ConfigurationKey) -> String {
            guard let value = key.defaultValue else { preconditionFailure("\(key.name) has no built-in default") }
            return value
        }

        private static func number(_ key: ConfigurationKey) -> Double {
            guard let value = Double(text(key)) else { preconditionFailure("\(key.name)'s default is not a number") }
            return value
        }

        private static func boolean(_ key: ConfigurationKey) -> Bool {
            guard let value = LayeredValues.parseBoolean(text(key)) else {
                preconditionFailure("\(key.name)'s default is not true or false")
            }
            return value
        }
    }

    /// The config file read when `--config` is not given; a missing one means built-in defaults.
    public static let defaultConfigFile = "Config/fleetfence.yaml"

    public init(
        brokerURLs: [String] = [Defaults.brokerURL],
        username: String? = nil,
        passwordFile: String? = nil,
        caFile: String? = nil,
        clientID: String = Defaults.clientID,
        positionTopics: [String] = Defaults.positionTopics,
        prefix: String = Defaults.prefix,
        fencesFile: String = Defaults.fencesFile,
        journalPath: String = Defaults.journalPath,
        geofence: GeofenceSettings = Defaults.geofence,
        statsIntervalSeconds: Double = Defaults.statsIntervalSeconds,
        logLevel: String = Defaults.logLevel,
        instanceName: String? = nil,
        http: HTTPSettings = HTTPSettings(),
        integrations: Integrations = Integrations(),
        retentionDays: Double = Defaults.retentionDays,
        inputs: Inputs = Inputs(),
        warnings: [String] = []
    ) {
        self.brokerURLs = brokerURLs
        self.username = username
        self.passwordFile = passwordFile
        self.caFile = caFile
        self.clientID = clientID
        self.positionTopics = positionTopics
        self.prefix = prefix
        self.fencesFile = fencesFile
        self.journalPath = journalPath
        self.geofence = geofence
        self.statsIntervalSeconds = statsIntervalSeconds
        self.logLevel = logLevel
        self.instanceName = instanceName
        self.http = http
        self.integrations = integrations
        self.retentionDays = retentionDays
        self.inputs = inputs
        self.warnings = warnings
    }

    /// Every broker URL, parsed.
    public func brokers() throws(ConfigurationError) -> [MQTTURL] {
        var urls: [MQTTURL] = []
        for text in brokerURLs {
            do {
                urls.append(try MQTTURL(parsing: text))
            } catch {
                throw ConfigurationError(key: ConfigurationKey.brokerURL.name, source: nil, message: error.description)
            }
        }
        return urls
    }

    /// The broker password from ``passwordFile`` without its trailing newline(s); `nil` when no file is set.
    /// Read on each call, so that a rotated secret is picked up on reconnect.
    public func password() throws(ConfigurationError) -> String? {
        guard let passwordFile else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: passwordFile))
        } catch {
            throw ConfigurationError(
                key: ConfigurationKey.passwordFile.name, source: nil,
                message: "cannot read \(passwordFile): \(error.localizedDescription)")
        }
        var password = String(decoding: data, as: UTF8.self)
        // Editors and `echo` add a newline; spaces may be part of the password, so only newlines go.
        while let last = password.last, last.isNewline { password.removeLast() }
        guard !password.isEmpty else {
            throw ConfigurationError(
                key: ConfigurationKey.passwordFile.name, source: nil, message: "\(passwordFile) is empty")
        }
        return password
    }
}
