/// The journal's statement texts: one row each. The connection keeps each prepared, so a
/// transaction of a thousand rows steps one statement a thousand times.
enum JournalSQL {
    static let transitionColumns = [
        "id", "device", "fence", "event", "at", "confirmed_at", "lat", "lon", "seq", "reason", "duration_s", "dwell_s",
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
    static let upsertClock = """
        INSERT INTO device_clocks (device, last_ts, anchor_ts, anchor_lat, anchor_lon, last_heard) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (device) DO UPDATE SET last_ts = excluded.last_ts, anchor_ts = excluded.anchor_ts,
            anchor_lat = excluded.anchor_lat, anchor_lon = excluded.anchor_lon, last_heard = excluded.last_heard
        """
    static let deleteClock = "DELETE FROM device_clocks WHERE device = ?"
    static let upsertOwnTracks = "INSERT OR REPLACE INTO owntracks_devices (device, topic) VALUES (?, ?)"
    static let deleteOwnTracks = "DELETE FROM owntracks_devices WHERE device = ?"
    static let insertClockLog = "INSERT INTO clock_log (id, entries) VALUES (?, ?)"
    static let deleteClockLog = "DELETE FROM clock_log WHERE id BETWEEN ? AND ?"

    static let upsertFence = """
        INSERT INTO fences (id, record, origin, updated_at) VALUES (?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET record = excluded.record, origin = excluded.origin, updated_at = excluded.updated_at
        """
    static let deleteFence = "DELETE FROM fences WHERE id = ?"

    static let upsertTour = "INSERT OR REPLACE INTO tours (id, definition) VALUES (?, ?)"
    static let deleteTour = "DELETE FROM tours WHERE id = ?"

    static let upsertFileFence = "INSERT OR REPLACE INTO file_fences (id, definition) VALUES (?, ?)"
    static let deleteFileFence = "DELETE FROM file_fences WHERE id = ?"

    /// The head of its device's queue when none waits before it (docs/webhooks.md "Webhooks").
    static let insertOutbox = """
        INSERT INTO webhook_outbox (webhook, device, seq, event, payload, confirmed_at, queued_at, next_attempt_at, head)
        SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,
            NOT EXISTS (SELECT 1 FROM webhook_outbox WHERE webhook = ?1 AND device = ?2)
        """
    /// After a device's head went (delivered or dead): its next row heads.
    static let promoteOutboxHead = """
        UPDATE webhook_outbox SET head = 1
        WHERE id = (SELECT MIN(id) FROM webhook_outbox WHERE webhook = ? AND device = ?)
        """
}
