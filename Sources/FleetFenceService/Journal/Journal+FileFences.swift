
extension Journal {
    /// The statements that update the record of the fences file as last applied (id to encoded
    /// definition): `removed` deleted, `definitions` upserted.
    static func fileFenceStatements(_ definitions: [String: [UInt8]], removed: [String])
        -> [(sql: String, binds: [SQLiteData])]
    {
        var statements: [(sql: String, binds: [SQLiteData])] = removed.map {
            ("DELETE FROM file_fences WHERE id = ?", [.text($0)])
        }
        for batch in definitions.sorted(by: { $0.key < $1.key }).batches(of: 500) {
            let sql = "INSERT OR REPLACE INTO file_fences (id, definition) VALUES "
                + Array(repeating: "(?, ?)", count: batch.count).joined(separator: ", ")
            statements.append((sql, batch.flatMap { [SQLiteData.text($0.key), .blob($0.value)] }))
        }
        return statements
    }

    /// The fences file as last applied; empty before the first load.
    public func loadFileFences() throws -> [String: [UInt8]] {
        let rows = try locked { try db.run("SELECT id, definition FROM file_fences") }
        var definitions: [String: [UInt8]] = [:]
        for row in rows {
            definitions[try row.text("id", in: "file_fences")] = try row.bytes("definition", in: "file_fences")
        }
        return definitions
    }
}
