import Foundation

extension Journal {
    /// The statements that delete `removed` and upsert `fences`.
    static func fenceStatements(_ fences: [JournalFenceRow], removed: [String], updatedAt: Double)
        -> [(sql: String, binds: [SQLiteData])]
    {
        removed.map { (JournalSQL.deleteFence, [.text($0)]) }
            + fences.map { row in
                (JournalSQL.upsertFence, [.text(row.id), .blob(row.record), .text(row.origin.rawValue), .float(updatedAt)])
            }
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
