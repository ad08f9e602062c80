/// Typed column reads that name the column when the data is not what the schema promises.
extension SQLiteRow {
    func text(_ column: String, in table: String) throws -> String {
        guard let value = self.column(column)?.stringValue else { throw JournalError.malformedRow(table: table, column: column) }
        return value
    }

    func optionalText(_ column: String) -> String? {
        self.column(column)?.stringValue
    }

    func double(_ column: String, in table: String) throws -> Double {
        guard let value = self.column(column)?.doubleValue else { throw JournalError.malformedRow(table: table, column: column) }
        return value
    }

    func optionalDouble(_ column: String) -> Double? {
        self.column(column)?.doubleValue
    }

    func int64(_ column: String, in table: String) throws -> Int64 {
        guard let value = self.column(column)?.int64Value else { throw JournalError.malformedRow(table: table, column: column) }
        return value
    }

    /// A blob's bytes, or a text's UTF-8 bytes (the alert column holds either).
    func bytes(_ column: String, in table: String) throws -> [UInt8] {
        switch self.column(column) {
        case .blob(let bytes): bytes
        case .text(let text): Array(text.utf8)
        default: throw JournalError.malformedRow(table: table, column: column)
        }
    }
}

extension JournalTransition {
    init(row: SQLiteRow) throws {
        let table = "transitions"
        self.init(
            device: try row.text("device", in: table),
            fence: try row.text("fence", in: table),
            event: try row.text("event", in: table),
            at: try row.double("at", in: table),
            confirmedAt: try row.double("confirmed_at", in: table),
            lat: try row.double("lat", in: table),
            lon: try row.double("lon", in: table),
            seq: try row.int64("seq", in: table),
            reason: row.optionalText("reason"),
            durationSeconds: row.optionalDouble("duration_s"),
            dwellSeconds: row.optionalDouble("dwell_s"),
            alertJSON: try row.bytes("alert", in: table))
        self.row = row.column("id")?.int64Value ?? 0
        self.name = row.optionalText("name")
    }
}
