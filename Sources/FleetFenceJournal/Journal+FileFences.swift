import GeofenceEngine

extension Journal {
    /// The statements that update the record of the fences file as last applied (id to encoded
    /// definition) where the fence rows do not hold it (``loadFileFences()``): `removed` deleted,
    /// `definitions` upserted in id order (the keys sorted alone, as `JournalWriter` sorts its
    /// fences).
    static func fileFenceStatements(_ definitions: [ExactID: [UInt8]], removed: [String])
        -> [(sql: String, binds: [SQLiteData])]
    {
        removed.map { (JournalSQL.deleteFileFence, [.text($0)]) }
            + definitions.keys.sortedByID().compactMap { id in
                definitions[id].map { (JournalSQL.upsertFileFence, [.text(id.string), .blob($0)]) }
            }
    }

    /// The fences file as last applied where the fence rows do not say it, in id order (SQLite's
    /// `BINARY` order of the ids' bytes, `ExactID`'s too): a fence whose row has origin `file` is
    /// its own entry, and an entry of such a fence here is an older one, not read. In order, so
    /// that a restart pairs it with the fence rows, also in id order, without a table of either
    /// (``loadFences()``).
    public func loadFileFences() throws -> [(id: ExactID, definition: [UInt8])] {
        let rows = try locked { try db.run("SELECT id, definition FROM file_fences ORDER BY id") }
        return try rows.map { row in
            (ExactID(try row.text("id", in: "file_fences")), try row.bytes("definition", in: "file_fences"))
        }
    }
}
