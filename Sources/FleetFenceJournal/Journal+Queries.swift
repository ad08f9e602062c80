import GeofenceEngine

extension Journal {
    /// Every device's stored state, ordered by device id.
    public func loadDevices() throws -> [JournalDeviceRow] {
        let rows = try locked { try db.run("SELECT device, state, updated_at FROM devices ORDER BY device") }
        return try rows.map { row in
            JournalDeviceRow(
                device: try row.text("device", in: "devices"), state: try row.bytes("state", in: "devices"),
                updatedAt: row.optionalDouble("updated_at"))
        }
    }

    /// The highest alert `seq` journaled per device, to continue numbering after a restart.
    public func maxSeqPerDevice() throws -> [ExactID: Int64] {
        let rows = try locked {
            try db.run("SELECT device, MAX(seq) AS seq FROM transitions GROUP BY device")
        }
        var result: [ExactID: Int64] = [:]
        for row in rows {
            result[ExactID(try row.text("device", in: "transitions"))] = try row.int64("seq", in: "transitions")
        }
        return result
    }
}
