/// The journal's statement texts.
enum JournalSQL {
    static let transitionColumns = [
        "device", "fence", "event", "at", "confirmed_at", "lat", "lon", "seq", "reason", "duration_s", "dwell_s",
        "alert",
    ]
    /// 12 columns x 500 rows stays far below the bundled SQLite's limit on bound variables.
    static let transitionsPerStatement = 500
    static let devicesPerStatement = 1_000

    static let fullTransitionInsert = makeInsertTransitions(count: transitionsPerStatement)
    static let fullDeviceUpsert = makeUpsertDevices(count: devicesPerStatement)

    static func insertTransitions(count: Int) -> String {
        count == transitionsPerStatement ? fullTransitionInsert : makeInsertTransitions(count: count)
    }

    static func upsertDevices(count: Int) -> String {
        count == devicesPerStatement ? fullDeviceUpsert : makeUpsertDevices(count: count)
    }

    static func deleteDevices(count: Int) -> String {
        "DELETE FROM devices WHERE device IN (\(placeholders(count)))"
    }

    private static func makeInsertTransitions(count: Int) -> String {
        let row = "(\(placeholders(transitionColumns.count)))"
        return "INSERT INTO transitions (\(transitionColumns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: count).joined(separator: ", ")
    }

    private static func makeUpsertDevices(count: Int) -> String {
        "INSERT INTO devices (device, state, updated_at) VALUES "
            + Array(repeating: "(?, ?, ?)", count: count).joined(separator: ", ")
            + " ON CONFLICT (device) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at"
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
