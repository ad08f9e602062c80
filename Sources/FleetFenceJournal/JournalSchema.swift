import FleetFenceCodecs
import Foundation
import GeofenceEngine

/// The journal's tables, versioned with `PRAGMA user_version` so that later builds can migrate.
enum JournalSchema {
    /// Each version's migration brings a journal of the version before up to it.
    private static let migrations: [@Sendable (SQLiteConnection) throws -> Void] = [
        { db in try run(version1, in: db) },
        { db in try run(version2, in: db) },
        version3,
        { db in try run(version4, in: db) },
        { db in try run(version5, in: db) },
        { db in try run(version6, in: db) },
        { db in try run(version7, in: db) },
        { db in try run(version8, in: db) },
        { db in try run(version9, in: db) },
        { db in try run(version10, in: db) },
        { db in try run(version11, in: db) },
        { db in try run(version12, in: db) },
        { db in try run(version13, in: db) },
    ]
    static var version: Int { migrations.count }

    private static func run(_ statements: [String], in db: SQLiteConnection) throws {
        for statement in statements { try db.run(statement) }
    }

    /// `alert` is TEXT so that `json_extract(alert, ...)` works in the sqlite3 shell.
    private static let version1 = [
        """
        CREATE TABLE transitions (
            id INTEGER PRIMARY KEY,
            device TEXT NOT NULL,
            fence TEXT NOT NULL,
            event TEXT NOT NULL,
            at REAL NOT NULL,
            confirmed_at REAL NOT NULL,
            lat REAL NOT NULL,
            lon REAL NOT NULL,
            seq INTEGER NOT NULL,
            reason TEXT,
            duration_s REAL,
            dwell_s REAL,
            alert TEXT NOT NULL
        )
        """,
        // seq rides along so that maxSeqPerDevice reads only this index at start.
        "CREATE INDEX transitions_device_time ON transitions (device, confirmed_at, seq)",
        "CREATE INDEX transitions_fence_time ON transitions (fence, confirmed_at)",
        """
        CREATE TABLE devices (
            device TEXT PRIMARY KEY,
            state BLOB NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
        // The fences the engine held, so that a restart knows which fences are new to which device
        // (first sight) and keeps fences set at run time. `origin` is `file` or `runtime`.
        """
        CREATE TABLE fences (
            id TEXT PRIMARY KEY,
            record BLOB NOT NULL,
            origin TEXT NOT NULL,
            updated_at REAL NOT NULL
        )
        """,
    ]

    /// The fences file as last applied, so that a reload (or restart) applies only what changed
    /// in the file and leaves run-time changes to the file's fences alone (since version 13 only
    /// where the `fences` row is not the file's: see `version13`).
    private static let version2 = [
        """
        CREATE TABLE file_fences (
            id TEXT PRIMARY KEY,
            definition BLOB NOT NULL
        )
        """,
    ]

    /// Fence definitions move from Swift's Codable layout to the plain definition of a `set` payload
    /// (`FenceDefinitionEncoding`), which reads back much faster and is what users already know.
    /// `fences.record` keeps its `{"definition":…,"generation":N}` envelope.
    private static func version3(_ db: SQLiteConnection) throws {
        let decoder = JSONDecoder()
        for row in try db.run("SELECT id, record FROM fences") {
            let id = try row.text("id", in: "fences")
            // An unreadable row stays as it is; the restore skips it with a warning, as before.
            guard let record = try? decoder.decode(JournalSchemaV2.Record.self, from: Data(row.bytes("record", in: "fences"))),
                let definition = record.definition.current
            else { continue }
            let bytes = JournalFenceRecord.encode(definition: FenceDefinitionEncoding.encode(definition), generation: record.generation)
            try db.run("UPDATE fences SET record = ? WHERE id = ?", [.blob(bytes), .text(id)])
        }
        for row in try db.run("SELECT id, definition FROM file_fences") {
            let id = try row.text("id", in: "file_fences")
            guard let stored = try? decoder.decode(JournalSchemaV2.Definition.self, from: Data(row.bytes("definition", in: "file_fences"))),
                let definition = stored.current
            else { continue }
            try db.run(
                "UPDATE file_fences SET definition = ? WHERE id = ?",
                [.blob(FenceDefinitionEncoding.encode(definition)), .text(id)])
        }
    }

    /// The history by time, as the HTTP interface and `fleetfence events` page through it and as
    /// retention prunes it; and a place for the start-up write that proves the file writable.
    private static let version4 = [
        "CREATE INDEX IF NOT EXISTS transitions_time ON transitions (at, seq, id)",
        "CREATE TABLE IF NOT EXISTS journal_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ]

    /// Tours set at run time (docs/rules.md "Tours"), each definition in the plain form a `set` payload
    /// uses; a device's progress in them is part of its state.
    private static let version5 = [
        "CREATE TABLE IF NOT EXISTS tours (id TEXT PRIMARY KEY, definition BLOB NOT NULL)",
    ]

    /// Webhooks (docs/webhooks.md "Webhooks"): each alert a webhook matched waits in `webhook_outbox`,
    /// inserted in the alert's own transaction, until it is delivered (the row goes) or dead
    /// (moved to `webhook_dead`). AUTOINCREMENT: ids are never reused, so a redelivered dead
    /// letter goes back under its own id, in its place in its device's order. `head` marks each
    /// device's oldest row, the only one that may be sent: due rows are then found by an index,
    /// however long a queue behind a receiver that is down (never a scan of it).
    private static let version6 = [
        """
        CREATE TABLE IF NOT EXISTS webhook_outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            webhook TEXT NOT NULL,
            device TEXT NOT NULL,
            seq INTEGER NOT NULL,
            event TEXT NOT NULL,
            payload BLOB NOT NULL,
            confirmed_at REAL NOT NULL,
            queued_at REAL NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at REAL NOT NULL,
            first_attempt_at REAL,
            last_attempt_at REAL,
            last_error TEXT,
            head INTEGER NOT NULL DEFAULT 0
        )
        """,
        // A device's next head (its oldest row) is found by this index; due heads by the next.
        "CREATE INDEX IF NOT EXISTS webhook_outbox_order ON webhook_outbox (webhook, device, id)",
        "CREATE INDEX IF NOT EXISTS webhook_outbox_due ON webhook_outbox (webhook, head, next_attempt_at, id)",
        """
        CREATE TABLE IF NOT EXISTS webhook_dead (
            id INTEGER PRIMARY KEY,
            webhook TEXT NOT NULL,
            device TEXT NOT NULL,
            seq INTEGER NOT NULL,
            event TEXT NOT NULL,
            payload BLOB NOT NULL,
            confirmed_at REAL NOT NULL,
            queued_at REAL NOT NULL,
            attempts INTEGER NOT NULL,
            first_attempt_at REAL,
            last_attempt_at REAL,
            error TEXT NOT NULL,
            died_at REAL NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS webhook_dead_by_webhook ON webhook_dead (webhook, id)",
    ]

    /// The devices' rows stored in the order of their ids (WITHOUT ROWID), where they were stored
    /// in the order devices were first seen, behind an index of the ids. The writer writes held
    /// device rows a chunk of ids in order at a time; stored by id, such a chunk fills a few pages
    /// of the WAL, where it filled about one page per row: at 10,000 latest-sample rows a second,
    /// 3,000 frames a second instead of 10,000 (fleetbench, docs/performance.md).
    private static let version7 = [
        """
        CREATE TABLE devices_by_id (
            device TEXT PRIMARY KEY,
            state BLOB NOT NULL,
            updated_at REAL NOT NULL
        ) WITHOUT ROWID
        """,
        // In id order: each row lands at the end of the new table, never in the middle.
        "INSERT INTO devices_by_id (device, state, updated_at) SELECT device, state, updated_at FROM devices ORDER BY device",
        "DROP TABLE devices",
        "ALTER TABLE devices_by_id RENAME TO devices",
    ]

    /// The time and place of each device's latest sample, apart from its record: every accepted
    /// sample changes them and nothing else, for most samples. Rewriting the record's JSON for
    /// them (each second, for every device that moved) was most of the journal's writes: in the
    /// soak's fleet (docs/performance.md "Soak"), 41,700 rows a second of 272 bytes on average.
    /// A row here is about 60 bytes (estimated from its columns, not measured); at restart it is
    /// applied over the record when newer (`DeviceClock`). Stored by id, like `devices`. A
    /// record written later leaves the clock row behind, older and so ignored: deleting it
    /// would cost a write per alerted device.
    private static let version8 = [
        """
        CREATE TABLE IF NOT EXISTS device_clocks (
            device TEXT PRIMARY KEY,
            last_ts REAL NOT NULL,
            anchor_ts REAL,
            anchor_lat REAL,
            anchor_lon REAL,
            last_heard REAL
        ) WITHOUT ROWID
        """,
    ]

    /// Each second's latest-sample clocks as one packed row (`ClockLog`), folded into
    /// `device_clocks` a row per device every so often and then deleted: upserted each second
    /// instead, most devices' clocks cost a page of the WAL each (docs/performance.md "Soak").
    private static let version9 = [
        """
        CREATE TABLE IF NOT EXISTS clock_log (
            id INTEGER PRIMARY KEY,
            entries BLOB NOT NULL
        )
        """,
    ]

    /// No table: the fences file's digest is a `journal_meta` row (`FencesFileDigest`). The version
    /// moves so that an older build, which would change the file's record and leave the digest
    /// vouching for it, refuses the journal.
    private static let version10: [String] = []

    /// Each OwnTracks device's topic (`owntracks/<user>/<device>`), where its transitions go
    /// (docs/integrations.md "OwnTracks"): kept, an exit a fence change makes after a restart
    /// reaches the phone before it reports again.
    private static let version11 = [
        "CREATE TABLE IF NOT EXISTS owntracks_devices (device TEXT PRIMARY KEY, topic TEXT NOT NULL) WITHOUT ROWID",
    ]

    /// `journal_meta` stored by its keys (WITHOUT ROWID), where it was a table by row id behind an
    /// index of its keys. The published mark (`PublishedMark`) is replaced in most of the writer's
    /// transactions, and `INSERT OR REPLACE` into the table by row id wrote a page of the table and
    /// one of the index each time: 6.3% of the WAL's frames in fleetbench's QoS 0 stream
    /// (docs/performance.md "What the journal writes"), half of that now.
    private static let version12 = [
        "CREATE TABLE journal_meta_by_key (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
        // A key table by row id takes NULL, which one by key refuses: none is ever written, but a
        // row put in by hand must not stop the start.
        "INSERT INTO journal_meta_by_key (key, value) SELECT key, value FROM journal_meta WHERE key IS NOT NULL",
        "DROP TABLE journal_meta",
        "ALTER TABLE journal_meta_by_key RENAME TO journal_meta",
    ]

    /// `file_fences` holds the file's version of a fence only where the `fences` row does not: a
    /// fence the file set and nothing changed since (`origin` `file`) is its own record, read from
    /// its row. A fresh start with 100,000 fences wrote both, 200,000 rows, and waited 0.2-0.4 s
    /// for the second 100,000 (docs/performance.md "Performance"). The rows that repeat a
    /// `file` fence's definition go.
    private static let version13 = [
        "DELETE FROM file_fences WHERE id IN (SELECT id FROM fences WHERE origin = 'file')",
    ]

    /// Creates or migrates the schema to the current version; refuses a newer one.
    static func prepare(_ db: SQLiteConnection, path: String) throws {
        try db.transaction {
            let found = Int(try db.run("PRAGMA user_version").first?.column("user_version")?.int64Value ?? 0)
            if found == version { return }
            if found > version {
                throw JournalError.schemaTooNew(path: path, found: found, supported: version)
            }
            for migration in migrations[found...] { try migration(db) }
            try db.run("PRAGMA user_version = \(version)")
        }
    }
}
