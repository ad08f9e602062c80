/// The journal's statement texts: one row each. The connection keeps each prepared, so a
/// transaction of a thousand rows steps one statement a thousand times.
enum JournalSQL {
    static let transitionColumns = [
        "device", "fence", "event", "at", "confirmed_at", "lat", "lon", "seq", "reason", "duration_s", "dwell_s",
        "alert",
    ]

    static let insertTransition =
        "INSERT INTO transitions (\(transitionColumns.joined(separator: ", "))) VALUES ("
        + Array(repeating: "?", count: transitionColumns.count).joined(separator: ", ") + ")"

    static let upsertDevice = """
        INSERT INTO devices (device, state, updated_at) VALUES (?, ?, ?)
        ON CONFLICT (device) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at
        """
    static let deleteDevice = "DELETE FROM devices WHERE device = ?"

    static let upsertFence = """
        INSERT INTO fences (id, record, origin, updated_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET record = excluded.record, origin = excluded.origin, updated_at = excluded.updated_at
        """
    static let deleteFence = "DELETE FROM fences WHERE id = ?"

    static let upsertTour = "INSERT OR REPLACE INTO tours (id, definition) VALUES (?, ?)"
    static let deleteTour = "DELETE FROM tours WHERE id = ?"

    static let upsertFileFence = "INSERT OR REPLACE INTO file_fences (id, definition) VALUES (?, ?)"
    static let deleteFileFence = "DELETE FROM file_fences WHERE id = ?"

    static let insertOutbox = """
        INSERT INTO webhook_outbox (webhook, device, seq, event, payload, confirmed_at, queued_at, next_attempt_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
}
