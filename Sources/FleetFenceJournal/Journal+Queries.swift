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

    /// Every device's latest-sample clock (`DeviceClock`), by the id's bytes: apply each over the
    /// device's record, where it is newer.
    public func loadDeviceClocks() throws -> [ExactID: DeviceClock] {
        let rows = try locked {
            try db.run("SELECT device, last_ts, anchor_ts, anchor_lat, anchor_lon, last_heard FROM device_clocks")
        }
        var clocks: [ExactID: DeviceClock] = [:]
        clocks.reserveCapacity(rows.count)
        for row in rows {
            let device = try row.text("device", in: "device_clocks")
            guard let lastTimestamp = row.optionalDouble("last_ts") else {
                throw JournalError.malformedRow(table: "device_clocks", column: "last_ts")
            }
            clocks[ExactID(device)] = DeviceClock(
                device: device, lastTimestamp: lastTimestamp, anchorTime: row.optionalDouble("anchor_ts"),
                anchorLat: row.optionalDouble("anchor_lat"), anchorLon: row.optionalDouble("anchor_lon"),
                lastHeard: row.optionalDouble("last_heard"))
        }
        return clocks
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
