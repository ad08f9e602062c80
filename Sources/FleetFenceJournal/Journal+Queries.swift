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

    /// The latest-sample clocks a restart applies (`DeviceClock`), by the id's bytes.
    public struct StoredClocks: Sendable {
        /// Each device's clock: apply it over the device's record, where it is newer.
        public var clocks: [ExactID: DeviceClock] = [:]
        /// The devices whose clock is the log's, newer than their folded row: the service's next
        /// fold must write them, since it deletes every row of the log written before it.
        public var logged: Set<ExactID> = []
    }

    /// The folded table and the log not folded yet (`ClockLog`) together: a device's last entry in
    /// the log, unless a tombstone follows it, against its folded row, the later of the two. A
    /// fold writes a device's row before it deletes the log rows it covers, so a row may be newer
    /// or older than the log's entries; a forgotten device's row went in the transaction of its
    /// tombstone, so a row found is newer than the tombstone. Read in several statements, not as
    /// one snapshot: for a journal nobody writes meanwhile (a restart, a test between writes).
    public func loadDeviceClocks() throws -> StoredClocks {
        var stored = StoredClocks(clocks: try loadFoldedClocks())
        var logged: [ExactID: DeviceClock?] = [:]
        var after: Int64 = 0
        while true {
            // A few rows at a time: a row is up to a second of a fleet's clocks, megabytes.
            let rows = try locked {
                try db.run("SELECT id, entries FROM clock_log WHERE id > ? ORDER BY id LIMIT 8", [.integer(after)])
            }
            for row in rows {
                let id = row.column("id")?.int64Value ?? after
                after = id
                // Skipped whole, as an unreadable device record is: the clocks are the devices'
                // latest times, and their records (or the next row) still hold older ones.
                var entries: [ClockLog.Entry] = []
                do {
                    try ClockLog.decode(try row.bytes("entries", in: "clock_log")) { entries.append($0) }
                } catch {
                    logger.warning("journal: unreadable clock log row skipped", metadata: ["row": "\(id)"])
                    continue
                }
                for entry in entries {
                    switch entry {
                    case let .clock(clock): logged[ExactID(clock.device)] = clock
                    case let .forgotten(device): logged[ExactID(device)] = .some(nil)
                    }
                }
            }
            if rows.count < 8 { break }
        }
        for case let (device, clock?) in logged {
            if let folded = stored.clocks[device],
                (clock.lastTimestamp, clock.lastHeard ?? -.infinity) < (folded.lastTimestamp, folded.lastHeard ?? -.infinity)
            {
                continue
            }
            stored.clocks[device] = clock
            stored.logged.insert(device)
        }
        return stored
    }

    private func loadFoldedClocks() throws -> [ExactID: DeviceClock] {
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
