import Foundation
import SQLiteNIO

extension Journal {
    /// Upserts and deletes fences in one transaction.
    public func writeFences(_ fences: [JournalFenceRow], removed: [String] = []) throws {
        if fences.isEmpty && removed.isEmpty { return }
        let updatedAt = Date().timeIntervalSince1970
        try locked {
            try db.transaction {
                for id in removed { try db.run("DELETE FROM fences WHERE id = ?", [.text(id)]) }
                for batch in fences.batches(of: 500) {
                    let sql = "INSERT INTO fences (id, record, origin, updated_at) VALUES "
                        + Array(repeating: "(?, ?, ?, ?)", count: batch.count).joined(separator: ", ")
                        + " ON CONFLICT (id) DO UPDATE SET record = excluded.record, origin = excluded.origin,"
                        + " updated_at = excluded.updated_at"
                    let binds = batch.flatMap { row -> [SQLiteData] in
                        [.text(row.id), .blob(ByteBuffer(bytes: row.record)), .text(row.origin.rawValue), .float(updatedAt)]
                    }
                    try db.run(sql, binds)
                }
            }
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
