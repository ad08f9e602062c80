/// The SHA-256 of the fences file whose record `file_fences` holds (after the version of the
/// build's reader, `FenceFileReader.readingVersion`), in `journal_meta` beside it:
/// a restart or a SIGHUP that finds the file the same, byte for byte, has nothing to decode or
/// compare (docs/topics-and-payloads.md "Fences"). Only a file applied whole, with no feature refused,
/// has one: a file with problems is read again each time, so that they are reported again.
public enum FencesFileDigest {
    static let key = "fences_file_sha256"

    /// What a transaction does to the digest. A file's changes may take several transactions: the
    /// first clears the digest, the last sets the new one, so that a crash between them leaves a
    /// record that no digest vouches for.
    public enum Change: Sendable, Equatable {
        case clear
        case set(String)
    }

    static func statement(for change: Change) -> (sql: String, binds: [SQLiteData]) {
        switch change {
        case .clear: ("DELETE FROM journal_meta WHERE key = ?", [.text(key)])
        case let .set(digest): ("INSERT OR REPLACE INTO journal_meta (key, value) VALUES (?, ?)", [.text(key), .text(digest)])
        }
    }
}

extension Journal {
    /// The digest of the fences file as last applied, when it was applied whole and clean.
    public func fencesFileDigest() throws -> String? {
        try metaValue(FencesFileDigest.key)
    }
}
