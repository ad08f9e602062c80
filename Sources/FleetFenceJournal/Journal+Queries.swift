extension Journal {
    /// Every device's stored state, ordered by device id.
    public func loadDevices() throws -> [JournalDeviceRow] {
        let rows = try locked { try db.run("SELECT device, state FROM devices ORDER BY device") }
        return try rows.map { row in
            JournalDeviceRow(device: try row.text("device", in: "devices"), state: try row.bytes("state", in: "devices"))
        }
    }

    /// The highest alert `seq` journaled per device, to continue numbering after a restart.
    public func maxSeqPerDevice() throws -> [String: Int64] {
        let rows = try locked {
            try db.run("SELECT device, MAX(seq) AS seq FROM transitions GROUP BY device")
        }
        var result: [String: Int64] = [:]
        for row in rows {
            result[try row.text("device", in: "transitions")] = try row.int64("seq", in: "transitions")
        }
        return result
    }

    /// The most recent `limit` transitions matching every given filter, oldest first.
    /// `from` is inclusive and `to` exclusive, both on `confirmed_at`; a `nil` filter does not filter.
    /// To page back, call again with `to` set to the first result's `confirmedAt`.
    public func history(device: String?, fence: String?, from: Double?, to: Double?, limit: Int) throws
        -> [JournalTransition]
    {
        guard limit > 0 else { return [] }
        // Only present filters become conditions: `(? IS NULL OR device = ?)` would keep SQLite off the indexes.
        var conditions: [String] = []
        var binds: [SQLiteData] = []
        if let device { conditions.append("device = ?"); binds.append(.text(device)) }
        if let fence { conditions.append("fence = ?"); binds.append(.text(fence)) }
        if let from { conditions.append("confirmed_at >= ?"); binds.append(.float(from)) }
        if let to { conditions.append("confirmed_at < ?"); binds.append(.float(to)) }
        binds.append(.integer(Int64(limit)))
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let columns = "id, " + JournalSQL.transitionColumns.joined(separator: ", ")
        let sql = """
            SELECT * FROM (
                SELECT \(columns) FROM transitions \(filter) ORDER BY confirmed_at DESC, id DESC LIMIT ?
            ) ORDER BY confirmed_at, id
            """
        let rows = try locked { try db.run(sql, binds) }
        return try rows.map(JournalTransition.init(row:))
    }

    /// Who was inside `fence` at any time in `[from, to)`, each stay paired from an enter and the exit
    /// that follows it for the same device (times are the estimated crossings, `at`).
    /// Ordered by entry (unknown entries first), then device.
    public func stays(fence: String, from: Double, to: Double) throws -> [JournalStay] {
        // All of the fence's enters and exits: a stay that overlaps the range may have begun long before it.
        let rows = try locked {
            try db.run(
                """
                SELECT device, event, at FROM transitions
                WHERE fence = ? AND event IN ('enter', 'exit')
                ORDER BY device, confirmed_at, id
                """, [.text(fence)])
        }
        var stays: [JournalStay] = []
        var device: String?
        var openEnter: Double?
        for row in rows {
            let rowDevice = try row.text("device", in: "transitions")
            let event = try row.text("event", in: "transitions")
            let at = try row.double("at", in: "transitions")
            if rowDevice != device {
                if let device, let openEnter { stays.append(JournalStay(device: device, enteredAt: openEnter, exitedAt: nil)) }
                device = rowDevice
                openEnter = nil
            }
            if event == "enter" {
                // Two enters in a row: the exit between them is not journaled, so this stay's end is unknown.
                if let openEnter { stays.append(JournalStay(device: rowDevice, enteredAt: openEnter, exitedAt: nil)) }
                openEnter = at
            } else {
                stays.append(JournalStay(device: rowDevice, enteredAt: openEnter, exitedAt: at))
                openEnter = nil
            }
        }
        if let device, let openEnter { stays.append(JournalStay(device: device, enteredAt: openEnter, exitedAt: nil)) }

        return stays
            .filter { ($0.enteredAt ?? -.infinity) < to && ($0.exitedAt ?? .infinity) > from }
            .sorted { a, b in
                let (aStart, bStart) = (a.enteredAt ?? -.infinity, b.enteredAt ?? -.infinity)
                return aStart != bStart ? aStart < bStart : a.device < b.device
            }
    }
}
