import SQLiteNIO

/// The journal's tables, versioned with `PRAGMA user_version` so that later builds can migrate.
enum JournalSchema {
    static let version = 1

    /// `alert` is TEXT so that `json_extract(alert, ...)` works in the sqlite3 shell.
    private static let statements = [
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

    /// Creates the schema in a new file; accepts the current version; refuses a newer one.
    static func prepare(_ db: BlockingSQLite, path: String) throws {
        try db.transaction {
            let found = try db.run("PRAGMA user_version").first?.column("user_version")?.integer ?? 0
            if found == version { return }
            if found > version {
                throw JournalError.schemaTooNew(path: path, found: found, supported: version)
            }
            for statement in statements { try db.run(statement) }
            try db.run("PRAGMA user_version = \(version)")
        }
    }
}
