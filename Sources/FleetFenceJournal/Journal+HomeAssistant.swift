/// Where the devices the journal holds have their Home Assistant discovery configs
/// (docs/integrations.md "Home Assistant"), in `journal_meta`. Configs go on a device's first
/// sight; a start with Home Assistant on that finds another prefix here, or none, or `complete`
/// false (it was off since: devices seen meanwhile have none), publishes those of every device it
/// restored, and empties the ones under the prefix found.
public struct HomeAssistantDiscoveryMark: Sendable, Equatable {
    public var prefix: String
    /// Every device held has its config under `prefix`.
    public var complete: Bool

    public init(prefix: String, complete: Bool) {
        self.prefix = prefix
        self.complete = complete
    }

    static let key = "homeassistant_discovery"

    /// "complete <prefix>" or "partial <prefix>".
    var encoded: String { (complete ? "complete " : "partial ") + prefix }

    init?(encoded: String) {
        guard let space = encoded.firstIndex(of: " ") else { return nil }
        let state = encoded[..<space]
        guard state == "complete" || state == "partial" else { return nil }
        self.init(prefix: String(encoded[encoded.index(after: space)...]), complete: state == "complete")
    }
}

extension Journal {
    public func homeAssistantDiscovery() throws -> HomeAssistantDiscoveryMark? {
        try metaValue(HomeAssistantDiscoveryMark.key).flatMap(HomeAssistantDiscoveryMark.init(encoded:))
    }

    public func setHomeAssistantDiscovery(_ mark: HomeAssistantDiscoveryMark) throws {
        try locked {
            _ = try db.run(
                "INSERT OR REPLACE INTO journal_meta (key, value) VALUES (?, ?)",
                [.text(HomeAssistantDiscoveryMark.key), .text(mark.encoded)])
        }
    }
}
