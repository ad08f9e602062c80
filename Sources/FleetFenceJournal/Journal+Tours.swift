import GeofenceEngine

extension Journal {
    /// The statements that delete `removed` and upsert `tours` (id to encoded definition).
    static func tourStatements(_ tours: [ExactID: [UInt8]], removed: [String]) -> [(sql: String, binds: [SQLiteData])] {
        removed.map { (JournalSQL.deleteTour, [.text($0)]) }
            + tours.sorted { $0.key < $1.key }.map { id, definition in (JournalSQL.upsertTour, [.text(id.string), .blob(definition)]) }
    }

    /// Every stored tour: id to its definition as `TourDefinitionEncoding` wrote it.
    public func loadTours() throws -> [(id: String, definition: [UInt8])] {
        let rows = try locked { try db.run("SELECT id, definition FROM tours ORDER BY id") }
        return try rows.map { row in
            (try row.text("id", in: "tours"), try row.bytes("definition", in: "tours"))
        }
    }
}
