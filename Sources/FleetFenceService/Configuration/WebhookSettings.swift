import Foundation
import GeofenceEngine
import Yams

/// One entry of the config file's `webhooks` list (docs/webhooks.md "Webhooks"). Read with Yams from the
/// file itself, at start and on SIGHUP; a bad entry refuses the whole list.
public struct WebhookSettings: Sendable, Equatable {
    /// One topic level, unique: it names the webhook in the API, the metrics and the journal.
    public var name: String
    public var url: String
    /// Event names; empty means every alert and tour event.
    public var events: Set<String>
    public var devices: [String]
    public var fences: [String]
    /// Its content is the HMAC key. Read when the webhook starts, never kept in this value.
    public var secretFile: String?
    public var timeoutSeconds: Double
    public var maxAgeSeconds: Double

    public static let configKey = "webhooks"
    public static let defaultTimeoutSeconds: Double = 10
    public static let defaultMaxAgeSeconds: Double = 86_400
    /// The port the URL names, as written (`Int.max` past an `Int`); nil when it names none. A
    /// port past 65535 parses, and crashed the HTTP client at the first delivery of every start;
    /// one past an `Int` parses as no port (`URL.port` is nil), and would have gone to the scheme's.
    static func port(of url: String) -> Int? {
        guard let range = URLComponents(string: url)?.rangeOfPort, !url[range].isEmpty else { return nil }
        return Int(url[range]) ?? .max
    }

    private static let keys: Set<String> = ["name", "url", "events", "devices", "fences", "secret_file", "timeout_s", "max_age_s"]

    public init(
        name: String, url: String, events: Set<String> = [], devices: [String] = ["*"], fences: [String] = ["*"],
        secretFile: String? = nil, timeoutSeconds: Double = defaultTimeoutSeconds, maxAgeSeconds: Double = defaultMaxAgeSeconds
    ) {
        self.name = name
        self.url = url
        self.events = events
        self.devices = devices
        self.fences = fences
        self.secretFile = secretFile
        self.timeoutSeconds = timeoutSeconds
        self.maxAgeSeconds = maxAgeSeconds
    }

    /// The secret file's content, exactly (docs/webhooks.md "Webhooks": the HMAC key is the file's bytes).
    public func secret() throws(ConfigurationError) -> [UInt8]? {
        guard let secretFile else { return nil }
        guard let data = FileManager.default.contents(atPath: secretFile) else {
            throw ConfigurationError(
                key: "\(Self.configKey).\(name).secret_file", source: nil, message: "cannot read \(secretFile)")
        }
        guard !data.isEmpty else {
            throw ConfigurationError(key: "\(Self.configKey).\(name).secret_file", source: nil, message: "\(secretFile) is empty")
        }
        return Array(data)
    }

    /// The `webhooks` list of a config file's text; empty when there is none. Throws naming the
    /// entry and key of the first bad value.
    public static func read(fileText text: String, path: String) throws(ConfigurationError) -> [WebhookSettings] {
        let source = "config file \(path)"
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ConfigurationError(key: nil, source: source, message: "not usable YAML: \(error)")
        }
        guard let list = root?.mapping?[configKey] else { return [] }
        if case .scalar(let scalar) = list, scalar.string.isEmpty || scalar.string == "null" || scalar.string == "~" { return [] }
        guard let entries = list.sequence else {
            throw ConfigurationError(key: configKey, source: source, message: "expected a list of webhooks")
        }
        var webhooks: [WebhookSettings] = []
        for (index, entry) in entries.enumerated() {
            let webhook = try parse(entry, index: index, source: source)
            if webhooks.contains(where: { $0.name == webhook.name }) {
                throw ConfigurationError(
                    key: "\(configKey)[\(index)].name", source: source, message: "two webhooks are named \(webhook.name)")
            }
            // Read now, so that a missing secret is refused at start (or on SIGHUP), not at the first alert.
            do {
                _ = try webhook.secret()
            } catch {
                throw ConfigurationError(key: "\(configKey)[\(index)].secret_file", source: source, message: error.message)
            }
            webhooks.append(webhook)
        }
        return webhooks
    }

    private static func parse(_ node: Node, index: Int, source: String) throws(ConfigurationError) -> WebhookSettings {
        func fail(_ key: String?, _ message: String) -> ConfigurationError {
            ConfigurationError(key: "\(configKey)[\(index)]" + (key.map { ".\($0)" } ?? ""), source: source, message: message)
        }
        guard let mapping = node.mapping else { throw fail(nil, "expected a map with name and url") }
        for key in mapping.keys {
            guard let name = key.string, Self.keys.contains(name) else {
                throw fail(key.string, "unknown key; expected one of \(Self.keys.sorted().joined(separator: ", "))")
            }
        }
        // An empty value, `~` or `null` means none, as for every optional key of the file, as
        // docs/configuration.md says; a quoted tilde is the text.
        func value(_ key: String) -> Node? {
            guard let value = mapping[key] else { return nil }
            if let scalar = value.scalar, scalar.style == .plain, ["", "~", "null", "Null", "NULL"].contains(scalar.string) {
                return nil
            }
            return value
        }
        func text(_ key: String) throws(ConfigurationError) -> String? {
            guard let value = value(key) else { return nil }
            guard let scalar = value.scalar else { throw fail(key, "expected text") }
            return scalar.string
        }
        func list(_ key: String) throws(ConfigurationError) -> [String]? {
            guard let value = value(key) else { return nil }
            if let scalar = value.scalar { return [scalar.string] }
            guard let items = value.sequence else { throw fail(key, "expected a list") }
            var strings: [String] = []
            for item in items {
                guard let scalar = item.scalar else { throw fail(key, "expected a list of text") }
                strings.append(scalar.string)
            }
            return strings
        }
        func seconds(_ key: String, _ fallback: Double) throws(ConfigurationError) -> Double {
            guard let raw = try text(key) else { return fallback }
            guard let value = Double(raw), value.isFinite, value > 0 else { throw fail(key, "expected a positive number, got \(raw)") }
            return value
        }
        guard let name = try text("name"), !name.isEmpty else { throw fail("name", "a webhook needs a name") }
        guard !name.contains(where: { $0 == "/" || $0 == "+" || $0 == "#" }), name.utf8.count <= 128 else {
            throw fail("name", "must be one topic level (no /, + or #, at most 128 bytes), got \(name)")
        }
        guard let url = try text("url") else { throw fail("url", "webhook \(name) needs a url") }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = parsed.host, !host.isEmpty
        else {
            throw fail("url", "not an http:// or https:// URL: \(url)")
        }
        if let port = Self.port(of: url), !(1...65_535).contains(port) {
            throw fail("url", "the port must be within 1-65535: \(url)")
        }
        let events = try list("events") ?? []
        if value("events") != nil, events.isEmpty {
            throw fail("events", "is empty, so it matches nothing; leave it out for every event")
        }
        let known = Set(AlertEvent.allCases.map(\.rawValue))
        for event in events where !known.contains(event) {
            throw fail("events", "unknown event \(event); expected some of \(AlertEvent.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        // A list that can match nothing is a mistake, not a wish: said at start rather than
        // found when no alert is delivered (`devices: []`, or `devices: "a*,b*"`, one glob with a
        // comma in it, where a YAML list was meant).
        func globs(_ key: String) throws(ConfigurationError) -> [String] {
            guard let globs = try list(key) else { return ["*"] }
            guard !globs.isEmpty else { throw fail(key, "is empty, so it matches nothing; leave it out for every one") }
            if value(key)?.scalar != nil, let glob = globs.first, glob.contains(",") {
                throw fail(key, "is one text holding a comma, \(glob); write a list, [\(glob.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", "))]")
            }
            return globs
        }
        let devices = try globs("devices")
        let fences = try globs("fences")
        let secretFile = try text("secret_file")
        if let secretFile, secretFile.isEmpty { throw fail("secret_file", "is empty") }
        return WebhookSettings(
            name: name, url: url, events: Set(events), devices: devices, fences: fences, secretFile: secretFile,
            timeoutSeconds: try seconds("timeout_s", defaultTimeoutSeconds),
            maxAgeSeconds: try seconds("max_age_s", defaultMaxAgeSeconds))
    }
}
