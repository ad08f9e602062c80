import SQLiteNIO

/// The journal's tables, versioned with `PRAGMA user_version` so that later builds can migrate.
enum JournalSchema {
    /// Each version's statements bring a journal of the version before up to it.
    private static let migrations = [version1, version2]
    static var version: Int { migrations.count }

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
    /// in the file and leaves run-time changes to the file's fences alone.
    private static let version2 = [
        """
        CREATE TABLE file_fences (
            id TEXT PRIMARY KEY,
            definition BLOB NOT NULL
        )
        """,
    ]

    /// Creates or migrates the schema to the current version; refuses a newer one.
    static func prepare(_ db: BlockingSQLite, path: String) throws {
        try db.transaction {
            let found = try db.run("PRAGMA user_version").first?.column("user_version")?.integer ?? 0
            if found == version { return }
            if found > version {
                throw JournalError.schemaTooNew(path: path, found: found, supported: version)
            }
            for statements in migrations[found...] {
                for statement in statements { try db.run(statement) }
            }
            try db.run("PRAGMA user_version = \(version)")
        }
    }
}
