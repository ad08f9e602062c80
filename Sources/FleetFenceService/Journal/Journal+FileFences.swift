import SQLiteNIO

extension Journal {
    /// Updates the record of the fences file as last applied: id to encoded definition.
    public func writeFileFences(_ definitions: [String: [UInt8]], removed: [String] = []) throws {
        if definitions.isEmpty && removed.isEmpty { return }
        try locked {
            try db.transaction {
                for id in removed { try db.run("DELETE FROM file_fences WHERE id = ?", [.text(id)]) }
                for batch in definitions.sorted(by: { $0.key < $1.key }).batches(of: 500) {
                    let sql = "INSERT OR REPLACE INTO file_fences (id, definition) VALUES "
                        + Array(repeating: "(?, ?)", count: batch.count).joined(separator: ", ")
                    let binds = batch.flatMap { [SQLiteData.text($0.key), .blob(ByteBuffer(bytes: $0.value))] }
                    try db.run(sql, binds)
                }
            }
        }
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
