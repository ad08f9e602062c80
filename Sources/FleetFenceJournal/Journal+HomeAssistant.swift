/// The Home Assistant discovery prefix under which every device the journal holds has had its
/// discovery config published (docs/integrations.md "Home Assistant"), in `journal_meta`. Configs
/// go on a device's first sight; a start with Home Assistant on that finds another prefix here,
/// or none (it was off, or the journal is older), publishes those of the devices it restored,
/// whose first sight has passed.
extension Journal {
    static let homeAssistantPrefixKey = "homeassistant_discovery_prefix"

    public func homeAssistantDiscoveryPrefix() throws -> String? {
        let rows = try locked {
            try db.run("SELECT value FROM journal_meta WHERE key = ?", [.text(Self.homeAssistantPrefixKey)])
        }
        return rows.first?.optionalText("value")
    }

    /// Written once every device held has its config (`nil`: Home Assistant off, none promised).
    public func setHomeAssistantDiscoveryPrefix(_ prefix: String?) throws {
        try locked {
            if let prefix {
                _ = try db.run(
                    "INSERT OR REPLACE INTO journal_meta (key, value) VALUES (?, ?)",
                    [.text(Self.homeAssistantPrefixKey), .text(prefix)])
            } else {
                _ = try db.run("DELETE FROM journal_meta WHERE key = ?", [.text(Self.homeAssistantPrefixKey)])
            }
        }
    }
}
