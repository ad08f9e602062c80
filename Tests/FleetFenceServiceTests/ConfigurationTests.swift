import FleetFenceSettings
import Foundation
import GeofenceEngine
import MQTT
import Testing

@testable import FleetFenceService

/// A scratch directory for config, password and CA files, removed with the value.
private final class ScratchDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    @discardableResult
    func file(_ name: String, _ contents: String) throws -> String {
        let path = url.appendingPathComponent(name).path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    var missingFile: String { url.appendingPathComponent("absent.yaml").path }
}

/// Loads with the default config file pointed at a path that does not exist, unless a file is given.
private func load(
    flags: [String: String] = [:], environment: [String: String] = [:], file: String? = nil,
    scratch: ScratchDirectory
) async throws -> ServiceConfiguration {
    try await ConfigurationLoader.load(
        flags: flags, environment: environment, configFile: file, defaultConfigFile: scratch.missingFile)
}

/// A one-key YAML document for a dotted key, lists as block sequences.
private func yaml(_ key: ConfigurationKey, _ value: String) -> String {
    let parts = key.name.split(separator: ".")
    if key.kind == .list {
        let items = value.split(separator: ",").map { "    - \($0)" }.joined(separator: "\n")
        return "\(parts[0]):\n  \(parts[1]):\n\(items)\n"
    }
    return "\(parts[0]):\n  \(parts[1]): \(value)\n"
}

/// The configuration's value for `key`, written the way the test writes inputs.
private func rendered(_ key: ConfigurationKey, in configuration: ServiceConfiguration) -> String? {
    let number = { (value: Double) in ConfigurationKey.format(value) }
    return switch key {
    case .brokerURL: configuration.brokerURLs.joined(separator: ",")
    case .username: configuration.username
    case .passwordFile: configuration.passwordFile
    case .caFile: configuration.caFile
    case .clientID: configuration.clientID
    case .positionTopics: configuration.positionTopics.joined(separator: ",")
    case .prefix: configuration.prefix
    case .fencesFile: configuration.fencesFile
    case .journalPath: configuration.journalPath
    case .debounce: number(configuration.geofence.debounceSeconds)
    case .hysteresis: number(configuration.geofence.hysteresisMeters)
    case .minRadius: number(configuration.geofence.minRadiusMeters)
    case .maxRadius: number(configuration.geofence.maxRadiusMeters)
    case .maxAccuracy: number(configuration.geofence.maxAccuracyMeters)
    case .silentConfirm: number(configuration.geofence.silentConfirmSeconds)
    case .statsInterval: number(configuration.statsIntervalSeconds)
    case .logLevel: configuration.logLevel
    case .instanceName: configuration.instanceName
    case .httpListen: configuration.http.listen
    case .httpTokenFile: configuration.http.tokenFile
    case .httpTilesURL: configuration.http.tilesURL
    case .homeAssistant: "\(configuration.integrations.homeAssistant)"
    case .homeAssistantPrefix: configuration.integrations.homeAssistantPrefix
    case .ownTracksTransitions: "\(configuration.integrations.ownTracksTransitions)"
    case .maxFuture: number(configuration.geofence.maxFutureSeconds)
    case .forgetAfter: number(configuration.geofence.forgetAfterSeconds)
    case .lateWindow: number(configuration.geofence.lateWindowSeconds)
    case .retentionDays: number(configuration.retentionDays)
    case .traccarTopics: configuration.inputs.traccarTopics.isEmpty ? nil : configuration.inputs.traccarTopics.joined(separator: ",")
    }
}

/// A valid value for `key` that differs per layer; files the key names are created in `scratch`.
private func sample(_ key: ConfigurationKey, layer: String, scratch: ScratchDirectory) throws -> String {
    switch key {
    case .brokerURL: return "mqtts://\(layer).example.com:8884,mqtts://\(layer)-2.example.com:8884"
    case .positionTopics: return "\(layer)/+/position,owntracks/+/+"
    case .traccarTopics: return "traccar/\(layer),traccar/\(layer)-2/#"
    case .passwordFile, .caFile, .httpTokenFile: return try scratch.file("\(key.flag)-\(layer)", "secret-\(layer)\n")
    case .logLevel: return ["flag": "debug", "env": "warning", "file": "error"][layer]!
    case .debounce, .hysteresis, .minRadius, .maxRadius, .maxAccuracy, .silentConfirm, .statsInterval, .maxFuture,
        .forgetAfter, .retentionDays, .lateWindow:
        return ["flag": "1001", "env": "1002", "file": "1003"][layer]!
    case .username, .clientID, .prefix, .fencesFile, .journalPath, .instanceName, .homeAssistantPrefix:
        return "\(layer)-\(key.flag)"
    case .httpListen: return ["flag": "127.0.0.1:0", "env": "0.0.0.0:9090", "file": "localhost:8081"][layer]!
    case .httpTilesURL: return "https://\(layer).example.com/{z}/{x}/{y}.png"
    // The file's YAML booleans, the others' words: each layer a different value from its neighbour.
    case .homeAssistant: return ["flag": "true", "env": "false", "file": "true"][layer]!
    case .ownTracksTransitions: return ["flag": "false", "env": "true", "file": "false"][layer]!
    }
}

@Suite("Configuration")
struct ConfigurationTests {
    @Test("each layer beats the ones below it", arguments: ConfigurationKey.allCases)
    func precedence(key: ConfigurationKey) async throws {
        let scratch = try ScratchDirectory()
        let flag = try sample(key, layer: "flag", scratch: scratch)
        let env = try sample(key, layer: "env", scratch: scratch)
        let fileValue = try sample(key, layer: "file", scratch: scratch)
        let file = try scratch.file("config.yaml", yaml(key, fileValue))
        let flags = [key.name: flag]
        let environment = [key.environmentVariable: env]

        let all = try await load(flags: flags, environment: environment, file: file, scratch: scratch)
        #expect(rendered(key, in: all) == flag)
        let noFlag = try await load(environment: environment, file: file, scratch: scratch)
        #expect(rendered(key, in: noFlag) == env)
        let fileOnly = try await load(file: file, scratch: scratch)
        #expect(rendered(key, in: fileOnly) == fileValue)
        #expect(fileOnly.warnings.filter { $0.contains("unknown key") }.isEmpty)
        let nothing = try await load(scratch: scratch)
        #expect(rendered(key, in: nothing) == rendered(key, in: ServiceConfiguration()))
    }

    @Test func environmentVariableNamesFollowTheContract() {
        #expect(ConfigurationKey.brokerURL.environmentVariable == "FLEETFENCE_BROKER_URL")
        #expect(ConfigurationKey.debounce.environmentVariable == "FLEETFENCE_GEOFENCE_DEBOUNCE_S")
        #expect(ConfigurationKey.passwordFile.environmentVariable == "FLEETFENCE_BROKER_PASSWORD_FILE")
        #expect(ConfigurationKey.statsInterval.environmentVariable == "FLEETFENCE_LOG_STATS_INTERVAL_S")
    }

    @Test func missingDefaultFileMeansBuiltInDefaults() async throws {
        let scratch = try ScratchDirectory()
        let configuration = try await load(scratch: scratch)
        #expect(configuration == ServiceConfiguration())
        #expect(configuration.brokerURLs == ["mqtt://127.0.0.1:1883"])
        #expect(configuration.positionTopics == ["fleet/+/position"])
        #expect(configuration.geofence == GeofenceSettings())
        #expect(configuration.statsIntervalSeconds == 10)
        #expect(configuration.logLevel == "info")
        #expect(configuration.warnings.isEmpty)
    }

    @Test func missingExplicitFileIsAnError() async throws {
        let scratch = try ScratchDirectory()
        let error = await #expect(throws: ConfigurationError.self) {
            try await load(file: scratch.missingFile, scratch: scratch)
        }
        #expect(error?.source == "flag --config")
        #expect(error?.message.contains(scratch.missingFile) == true)
    }

    @Test func emptyOrCommentOnlyFileSetsNothing() async throws {
        let scratch = try ScratchDirectory()
        for (name, text) in [("empty.yaml", ""), ("comments.yaml", "# nothing here yet\n\n  # indented\n---\n")] {
            let file = try scratch.file(name, text)
            let configuration = try await load(environment: ["FLEETFENCE_GEOFENCE_DEBOUNCE_S": "3"], file: file, scratch: scratch)
            #expect(configuration.geofence.debounceSeconds == 3)
            #expect(configuration.brokerURLs == ["mqtt://127.0.0.1:1883"])
            #expect(configuration.warnings.isEmpty)
        }
    }

    @Test func defaultFileIsReadWhenPresent() async throws {
        let scratch = try ScratchDirectory()
        let defaultFile = try scratch.file("fleetfence.yaml", "geofence:\n  debounce_s: 7\n")
        let configuration = try await ConfigurationLoader.load(
            flags: [:], environment: [:], configFile: nil, defaultConfigFile: defaultFile)
        #expect(configuration.geofence.debounceSeconds == 7)
    }

    @Test func shippedConfigFileDocumentsTheDefaults() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let shipped = repository.appendingPathComponent(ServiceConfiguration.defaultConfigFile).path
        let scratch = try ScratchDirectory()
        let configuration = try await load(file: shipped, scratch: scratch)
        // The defaults, and the file they came from (SIGHUP reads its `webhooks` again).
        var defaults = ServiceConfiguration()
        defaults.configFile = shipped
        #expect(configuration == defaults)
        // Its example webhook is a comment: none by default.
        #expect(configuration.webhooks.isEmpty)
        let text = try String(contentsOfFile: shipped, encoding: .utf8)
        for key in ConfigurationKey.allCases {
            #expect(text.contains(String(key.name.split(separator: ".")[1]) + ":"), "\(key.name) is not in the file")
        }
    }

    @Test func commaSeparatedListsFromEnvironmentAndFlags() async throws {
        let scratch = try ScratchDirectory()
        let fromEnvironment = try await load(
            environment: ["FLEETFENCE_TOPICS_POSITIONS": "fleet/+/position, owntracks/+/+"], scratch: scratch)
        #expect(fromEnvironment.positionTopics == ["fleet/+/position", "owntracks/+/+"])
        let fromFlag = try await load(flags: ["topics.positions": "a/+/p,b/+/p"], scratch: scratch)
        #expect(fromFlag.positionTopics == ["a/+/p", "b/+/p"])
    }

    @Test func yamlLists() async throws {
        let scratch = try ScratchDirectory()
        let block = try scratch.file("block.yaml", "topics:\n  positions:\n    - a/+/p\n    - owntracks/+/+\n")
        #expect(try await load(file: block, scratch: scratch).positionTopics == ["a/+/p", "owntracks/+/+"])
        let flow = try scratch.file("flow.yaml", "topics:\n  positions: [a/+/p, b/+/p]\n")
        #expect(try await load(file: flow, scratch: scratch).positionTopics == ["a/+/p", "b/+/p"])
        // A single filter written as a plain value is what people type; it is accepted too.
        let scalar = try scratch.file("scalar.yaml", "topics:\n  positions: a/+/p, b/+/p\n")
        #expect(try await load(file: scalar, scratch: scratch).positionTopics == ["a/+/p", "b/+/p"])
    }

    @Test func duplicateFiltersAreDroppedInOrder() async throws {
        let scratch = try ScratchDirectory()
        let configuration = try await load(flags: ["topics.positions": "b/+/p,a/+/p,b/+/p"], scratch: scratch)
        #expect(configuration.positionTopics == ["b/+/p", "a/+/p"])
    }

    @Test func debounceMayBeZero() async throws {
        let scratch = try ScratchDirectory()
        #expect(try await load(flags: ["geofence.debounce_s": "0"], scratch: scratch).geofence.debounceSeconds == 0)
    }

    struct Invalid: CustomTestStringConvertible, Sendable {
        var flags: [String: String] = [:]
        var environment: [String: String] = [:]
        var yaml: String?
        var key: String
        var source: String
        var testDescription: String { "\(key) from \(source)" }
    }

    static let invalidValues: [Invalid] = [
        Invalid(flags: ["geofence.debounce_s": "-1"], key: "geofence.debounce_s", source: "flag --debounce"),
        Invalid(flags: ["geofence.debounce_s": "soon"], key: "geofence.debounce_s", source: "flag --debounce"),
        Invalid(
            environment: ["FLEETFENCE_GEOFENCE_HYSTERESIS_M": "abc"], key: "geofence.hysteresis_m",
            source: "environment variable FLEETFENCE_GEOFENCE_HYSTERESIS_M"),
        Invalid(
            environment: ["FLEETFENCE_GEOFENCE_SILENT_CONFIRM_S": "inf"], key: "geofence.silent_confirm_s",
            source: "environment variable FLEETFENCE_GEOFENCE_SILENT_CONFIRM_S"),
        Invalid(yaml: "geofence:\n  max_accuracy_m: .nan\n", key: "geofence.max_accuracy_m", source: "config file"),
        Invalid(yaml: "geofence:\n  debounce_s: [1, 2]\n", key: "geofence.debounce_s", source: "config file"),
        Invalid(yaml: "geofence:\n  max_radius_m: 0\n", key: "geofence.max_radius_m", source: "config file"),
        Invalid(
            flags: ["geofence.min_radius_m": "500"], yaml: "geofence:\n  max_radius_m: 100\n",
            key: "geofence.min_radius_m", source: "flag --min-radius"),
        Invalid(flags: ["broker.url": "http://broker:1883"], key: "broker.url", source: "flag --broker"),
        Invalid(flags: ["broker.url": "mqtt://user:pw@broker"], key: "broker.url", source: "flag --broker"),
        Invalid(
            environment: ["FLEETFENCE_BROKER_URL": "broker.example.com"], key: "broker.url",
            source: "environment variable FLEETFENCE_BROKER_URL"),
        Invalid(flags: ["broker.url": "mqtt://broker:70000"], key: "broker.url", source: "flag --broker"),
        Invalid(flags: ["topics.positions": "fleet/position"], key: "topics.positions", source: "flag --positions"),
        Invalid(flags: ["topics.positions": "fleet/dev+/p"], key: "topics.positions", source: "flag --positions"),
        Invalid(flags: ["topics.positions": "fleet/#/+"], key: "topics.positions", source: "flag --positions"),
        Invalid(flags: ["topics.positions": "a/+/p,"], key: "topics.positions", source: "flag --positions"),
        Invalid(yaml: "topics:\n  positions: []\n", key: "topics.positions", source: "config file"),
        Invalid(flags: ["topics.prefix": "fleet/#"], key: "topics.prefix", source: "flag --prefix"),
        Invalid(flags: ["topics.prefix": "fleet/"], key: "topics.prefix", source: "flag --prefix"),
        Invalid(flags: ["broker.client_id": " "], key: "broker.client_id", source: "flag --client-id"),
        Invalid(yaml: "log:\n  level: loud\n", key: "log.level", source: "config file"),
        Invalid(flags: ["log.stats_interval_s": "0"], key: "log.stats_interval_s", source: "flag --stats-interval"),
        Invalid(
            flags: ["broker.password_file": "/nonexistent/password"], key: "broker.password_file",
            source: "flag --password-file"),
        Invalid(
            environment: ["FLEETFENCE_BROKER_CA_FILE": "/nonexistent/ca.pem"], key: "broker.ca_file",
            source: "environment variable FLEETFENCE_BROKER_CA_FILE"),
    ]

    @Test("invalid values are rejected naming key and source", arguments: invalidValues)
    func invalidValue(_ case: Invalid) async throws {
        let scratch = try ScratchDirectory()
        let file = try `case`.yaml.map { try scratch.file("config.yaml", $0) }
        let error = await #expect(throws: ConfigurationError.self) {
            try await load(flags: `case`.flags, environment: `case`.environment, file: file, scratch: scratch)
        }
        #expect(error?.key == `case`.key)
        #expect(error?.source?.hasPrefix(`case`.source) == true, "source was \(error?.source ?? "nil")")
        #expect(error?.description.contains(`case`.key) == true)
    }

    @Test func unknownFlagKeyIsAnError() async throws {
        let scratch = try ScratchDirectory()
        await #expect(throws: ConfigurationError.self) {
            try await load(flags: ["geofence.debounce": "3"], scratch: scratch)
        }
    }

    @Test func passwordFileIsReadWithoutTrailingNewline() async throws {
        let scratch = try ScratchDirectory()
        let unix = try scratch.file("unix", "s3cret\n")
        let windows = try scratch.file("windows", " pass word \r\n\n")
        let configuration = try await load(
            flags: ["broker.username": "fleet", "broker.password_file": unix], scratch: scratch)
        #expect(try configuration.password() == "s3cret")
        #expect(try ServiceConfiguration(passwordFile: windows).password() == " pass word ")
        #expect(try ServiceConfiguration().password() == nil)
        let empty = try scratch.file("empty", "\n")
        #expect(throws: ConfigurationError.self) { try ServiceConfiguration(passwordFile: empty).password() }
    }

    @Test func clientIDDefaultContainsTheHostName() async throws {
        let scratch = try ScratchDirectory()
        let configuration = try await load(scratch: scratch)
        let host = HostName.current
        #expect(!host.isEmpty)
        #expect(configuration.clientID == "fleetfence-\(host)")
        // Foundation may qualify the name with a domain; it starts with the same host name.
        #expect(ProcessInfo.processInfo.hostName.hasPrefix(host))
    }

    /// Two named instances on one machine must not take each other's session; an id the
    /// operator set is kept as written.
    @Test func aNamedInstanceGetsItsOwnDefaultClientID() async throws {
        let scratch = try ScratchDirectory()
        let named = try await load(flags: ["instance.name": "p2"], scratch: scratch)
        #expect(named.clientID == "fleetfence-\(HostName.current)-p2")
        let chosen = try await load(flags: ["instance.name": "p2", "broker.client_id": "mine"], scratch: scratch)
        #expect(chosen.clientID == "mine")
    }

    @Test func emptyAndNullClearOptionalValues() async throws {
        let scratch = try ScratchDirectory()
        let file = try scratch.file("config.yaml", "broker:\n  username: from-file\n")
        let cleared = try await load(environment: ["FLEETFENCE_BROKER_USERNAME": ""], file: file, scratch: scratch)
        #expect(cleared.username == nil)
        let null = try scratch.file("null.yaml", "broker:\n  username: ~\n  ca_file: null\n")
        let fromNull = try await load(file: null, scratch: scratch)
        #expect(fromNull.username == nil && fromNull.caFile == nil)
    }

    @Test func unknownKeysWarnButDoNotFail() async throws {
        let scratch = try ScratchDirectory()
        let file = try scratch.file(
            "config.yaml",
            """
            # a comment: not a key
            broker:
              urll: mqtt://typo:1883
              url: "mqtt://broker:1883"   # inline comment
            geofence:
              debounce_s: 5
            notes: |
              free: text
            extra: {a: 1}
            """)
        let configuration = try await load(
            environment: ["FLEETFENCE_BROKER_URLL": "x", "PATH": "/bin"], file: file, scratch: scratch)
        #expect(configuration.brokerURLs == ["mqtt://broker:1883"])
        #expect(configuration.geofence.debounceSeconds == 5)
        #expect(configuration.warnings.contains { $0.contains("broker.urll") })
        #expect(configuration.warnings.contains { $0.contains("notes") })
        #expect(configuration.warnings.contains { $0.contains("extra") })
        #expect(configuration.warnings.contains { $0.contains("FLEETFENCE_BROKER_URLL") })
        #expect(!configuration.warnings.contains { $0.contains("free") })
        #expect(configuration.warnings.count == 4, "\(configuration.warnings)")
    }

    /// A section that is not a map was read as no keys: every default, silently.
    @Test func aSectionThatIsNotAMapIsAnError() async throws {
        let scratch = try ScratchDirectory()
        for (text, key, found) in [
            ("geofence: 5\n", "geofence", "\"5\""), ("broker: [a, b]\n", "broker", "a list"),
            ("inputs: yes\n", "inputs", "\"yes\""),
        ] {
            let file = try scratch.file("config.yaml", text)
            let error = await #expect(throws: ConfigurationError.self) { try await load(file: file, scratch: scratch) }
            #expect(error?.key == key && error?.description.contains(found) == true, "\(text): \(error.map { "\($0)" } ?? "none")")
        }
        // Empty, it holds no keys: the defaults.
        let empty = try scratch.file("config.yaml", "geofence:\nbroker: ~\n")
        #expect(try await load(file: empty, scratch: scratch).geofence.debounceSeconds == 20)
    }

    @Test func unusedCredentialsWarn() async throws {
        let scratch = try ScratchDirectory()
        let ca = try scratch.file("ca.pem", "-----BEGIN CERTIFICATE-----\n")
        let password = try scratch.file("password", "pw\n")
        let configuration = try await load(
            flags: ["broker.ca_file": ca, "broker.password_file": password], scratch: scratch)
        #expect(configuration.warnings.contains { $0.contains("broker.ca_file") })
        #expect(configuration.warnings.contains { $0.contains("broker.username") })
    }

    @Test func severalBrokersAreAListAndMustAgreeOnTLS() async throws {
        let scratch = try ScratchDirectory()
        let listed = try await load(flags: ["broker.url": "mqtt://a:1883, mqtt://b:1884"], scratch: scratch)
        #expect(try listed.brokers() == [MQTTURL(host: "a", port: 1883), MQTTURL(host: "b", port: 1884)])
        await #expect(throws: ConfigurationError.self) {
            try await load(flags: ["broker.url": "mqtt://a:1883,mqtts://b:8883"], scratch: scratch)
        }
        await #expect(throws: ConfigurationError.self) { try await load(flags: ["broker.url": "mqtt://broker/path"], scratch: scratch) }
    }

    @Test func anEmptyHTTPAddressTurnsTheInterfaceOff() async throws {
        let scratch = try ScratchDirectory()
        #expect(try await load(scratch: scratch).http.listen == "127.0.0.1:8080")
        #expect(try await load(flags: ["http.listen": ""], scratch: scratch).http.listen == nil)
        #expect(try await load(environment: ["FLEETFENCE_HTTP_LISTEN": ""], scratch: scratch).http.listen == nil)
        await #expect(throws: ConfigurationError.self) { try await load(flags: ["http.listen": "8080"], scratch: scratch) }
        await #expect(throws: ConfigurationError.self) { try await load(flags: ["instance.name": "a/b"], scratch: scratch) }
        await #expect(throws: ConfigurationError.self) {
            try await load(flags: ["integrations.homeassistant": "maybe"], scratch: scratch)
        }
    }

    @Test func positionFilterRules() {
        #expect(TopicFilterRules.positionFilterProblem("owntracks/+/+") == nil)
        #expect(TopicFilterRules.positionFilterProblem("+/position") == nil)
        #expect(TopicFilterRules.positionFilterProblem("fleet/+/position/#") == nil)
        #expect(TopicFilterRules.positionFilterProblem("fleet/#") != nil)
        #expect(TopicFilterRules.positionFilterProblem("fleet/+x/position") != nil)
    }

    @Test func flagHelpNamesKeyVariableAndDefault() {
        let help = ConfigurationKey.debounce.help
        #expect(help.contains("geofence.debounce_s"))
        #expect(help.contains("FLEETFENCE_GEOFENCE_DEBOUNCE_S"))
        #expect(help.contains("default 20"))
        #expect(Set(ConfigurationKey.allCases.map(\.flag)).count == ConfigurationKey.allCases.count)
    }
}
