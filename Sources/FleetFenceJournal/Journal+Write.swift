import GeofenceEngine
import Foundation

extension Journal {
    /// Appends `alerts`, upserts `devices`, `clocks` (a device's latest sample alone, see
    /// `DeviceClock`; a fold of the clock log), `fences` and the record of the fences file
    /// (`fileFences`: id to encoded definition, and the digest vouching for it), deletes `removedDevices`, `removedFences` and
    /// `removedFileFences`, appends `clockLog` (a `ClockLog` row) and deletes the log's first rows up to
    /// `foldedClockLog`, 16 at most (each call deletes the next ones, nothing once none is left:
    /// a row of a second's clocks is megabytes of overflow pages in a large fleet, each read to be
    /// freed, and a minute's at once would hold the transaction's alerts up), all in one transaction: after a crash the journal holds all of a call
    /// or none of it. Removals apply before upserts. `mark`, when given, is journaled with them.
    public func write(
        alerts: [AlertRecord], devices: [JournalDeviceRow], clocks: [DeviceClock] = [], removedDevices: [String] = [],
        fences: [JournalFenceRow] = [], removedFences: [String] = [],
        fileFences: [ExactID: [UInt8]] = [:], removedFileFences: [String] = [], fencesFileDigest: FencesFileDigest.Change? = nil,
        tours: [ExactID: [UInt8]] = [:], removedTours: [String] = [], ownTracksTopics: [OwnTracksTopic] = [], clockLog: [UInt8]? = nil,
        foldedClockLog: Int64? = nil, mark: PublishedMark? = nil
    ) throws {
        if alerts.isEmpty && devices.isEmpty && clocks.isEmpty && removedDevices.isEmpty && fences.isEmpty && removedFences.isEmpty
            && fileFences.isEmpty && removedFileFences.isEmpty && fencesFileDigest == nil && tours.isEmpty && removedTours.isEmpty
            && ownTracksTopics.isEmpty && mark == nil && clockLog == nil && (foldedClockLog.map { $0 < clockLogRows.withLock(\.first) } ?? true)
        {
            return
        }
        if let gone = fileGone() { throw JournalError.fileGone(path: path, reason: gone) }
        let updatedAt = Date().timeIntervalSince1970
        // Fences first: a removal's exits and the removal itself land in one transaction.
        var statements = Self.fenceStatements(fences, removed: removedFences, updatedAt: updatedAt)
        statements += Self.fileFenceStatements(fileFences, removed: removedFileFences)
        if let fencesFileDigest { statements.append(FencesFileDigest.statement(for: fencesFileDigest)) }
        statements += Self.tourStatements(tours, removed: removedTours)
        var deviceStatements: [(sql: String, binds: [SQLiteData])] = []
        for device in removedDevices {
            deviceStatements.append((JournalSQL.deleteDevice, [.text(device)]))
            deviceStatements.append((JournalSQL.deleteClock, [.text(device)]))
            deviceStatements.append((JournalSQL.deleteOwnTracks, [.text(device)]))
        }
        for topic in ownTracksTopics {
            deviceStatements.append((JournalSQL.upsertOwnTracks, [.text(topic.device), .text(topic.topic)]))
        }
        for row in devices {
            deviceStatements.append((JournalSQL.upsertDevice, [.text(row.device), .blob(row.state), .float(updatedAt)]))
        }
        let optional = { (value: Double?) in value.map(SQLiteData.float) ?? .null }
        for clock in clocks {
            deviceStatements.append((JournalSQL.upsertClock, [
                .text(clock.device), .float(clock.lastTimestamp), optional(clock.anchorTime), optional(clock.anchorLat),
                optional(clock.anchorLon), optional(clock.lastHeard),
            ]))
        }
        if let mark { deviceStatements.append(Self.statement(for: mark)) }
        try locked {
            // Ids given under the lock: another thread's write cannot take the same ones.
            let firstID = alertIDs.withLock { $0 } + 1
            var logRows = clockLogRows.withLock { $0 }
            var statements = statements
            if let clockLog {
                logRows.last += 1
                statements.append((JournalSQL.insertClockLog, [.integer(logRows.last), .blob(clockLog)]))
            }
            if let foldedClockLog, logRows.first <= foldedClockLog {
                let through = min(foldedClockLog, logRows.first + Self.clockLogRowsDeleted - 1)
                statements.append((JournalSQL.deleteClockLog, [.integer(logRows.first), .integer(through)]))
                logRows.first = through + 1
            }
            for (offset, alert) in alerts.enumerated() {
                statements.append((JournalSQL.insertTransition, alert.binds(id: firstID + Int64(offset))))
                // Queued with the alert itself: a kill -9 loses neither or both (docs/webhooks.md "Webhooks").
                for webhook in alert.webhooks {
                    statements.append((JournalSQL.insertOutbox, alert.outboxBinds(webhook: webhook, queuedAt: updatedAt)))
                }
            }
            statements += deviceStatements
            // A single statement is atomic on its own.
            if statements.count == 1 {
                try db.run(statements[0].sql, statements[0].binds)
            } else {
                try db.transaction {
                    for statement in statements { try db.run(statement.sql, statement.binds) }
                }
            }
            alertIDs.withLock { $0 = firstID + Int64(alerts.count) - 1 }
            clockLogRows.withLock { $0 = logRows }
        }
    }

    private static let clockLogRowsDeleted: Int64 = 16

    /// The id of the last `clock_log` row written: a fold that starts now covers it and those before.
    public var lastClockLogRow: Int64 { clockLogRows.withLock(\.last) }
}
