import GeofenceEngine

extension Journal {
    /// The statements that update the record of the fences file as last applied (id to encoded
    /// definition): `removed` deleted, `definitions` upserted in id order (the keys sorted alone,
    /// as `JournalWriter` sorts its fences).
    static func fileFenceStatements(_ definitions: [ExactID: [UInt8]], removed: [String])
        -> [(sql: String, binds: [SQLiteData])]
    {
        removed.map { (JournalSQL.deleteFileFence, [.text($0)]) }
            + definitions.keys.sortedByID().compactMap { id in
                definitions[id].map { (JournalSQL.upsertFileFence, [.text(id.string), .blob($0)]) }
            }
    }

    /// The fences file as last applied; empty before the first load. By the id's bytes.
    public func loadFileFences() throws -> [ExactID: [UInt8]] {
        let rows = try locked { try db.run("SELECT id, definition FROM file_fences") }
        var definitions: [ExactID: [UInt8]] = [:]
        for row in rows {
            definitions[ExactID(try row.text("id", in: "file_fences"))] = try row.bytes("definition", in: "file_fences")
        }
        return definitions
    }
}
