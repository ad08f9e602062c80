import Foundation

extension Journal {
    /// The statements that delete `removed` and upsert `fences`.
    static func fenceStatements(_ fences: [JournalFenceRow], removed: [String], updatedAt: Double)
        -> [(sql: String, binds: [SQLiteData])]
    {
        var statements: [(sql: String, binds: [SQLiteData])] = removed.map { ("DELETE FROM fences WHERE id = ?", [.text($0)]) }
        for batch in fences.batches(of: 500) {
            let sql = "INSERT INTO fences (id, record, origin, updated_at) VALUES "
                + Array(repeating: "(?, ?, ?, ?)", count: batch.count).joined(separator: ", ")
                + " ON CONFLICT (id) DO UPDATE SET record = excluded.record, origin = excluded.origin,"
                + " updated_at = excluded.updated_at"
            let binds = batch.flatMap { row -> [SQLiteData] in
                [.text(row.id), .blob(row.record), .text(row.origin.rawValue), .float(updatedAt)]
            }
            statements.append((sql, binds))
        }
        return statements
    }

    /// Every stored fence, ordered by id.
    public func loadFences() throws -> [JournalFenceRow] {
        let rows = try locked { try db.run("SELECT id, record, origin FROM fences ORDER BY id") }
        return try rows.map { row in
            JournalFenceRow(
                id: try row.text("id", in: "fences"), record: try row.bytes("record", in: "fences"),
                origin: JournalFenceRow.Origin(rawValue: try row.text("origin", in: "fences")) ?? .runtime)
        }
    }
}
