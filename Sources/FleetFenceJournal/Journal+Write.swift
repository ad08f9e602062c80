import GeofenceEngine
import Foundation

extension Journal {
    /// Appends `alerts`, upserts `devices`, `fences` and the record of the fences file
    /// (`fileFences`: id to encoded definition), deletes `removedDevices`, `removedFences` and
    /// `removedFileFences`, all in one transaction: after a crash the journal holds all of a call
    /// or none of it. Removals apply before upserts.
    public func write(
        alerts: [AlertRecord], devices: [JournalDeviceRow], removedDevices: [String] = [],
        fences: [JournalFenceRow] = [], removedFences: [String] = [],
        fileFences: [ExactID: [UInt8]] = [:], removedFileFences: [String] = [],
        tours: [ExactID: [UInt8]] = [:], removedTours: [String] = []
    ) throws {
        if alerts.isEmpty && devices.isEmpty && removedDevices.isEmpty && fences.isEmpty && removedFences.isEmpty
            && fileFences.isEmpty && removedFileFences.isEmpty && tours.isEmpty && removedTours.isEmpty
        {
            return
        }
        let updatedAt = Date().timeIntervalSince1970
        // Fences first: a removal's exits and the removal itself land in one transaction.
        var statements = Self.fenceStatements(fences, removed: removedFences, updatedAt: updatedAt)
        statements += Self.fileFenceStatements(fileFences, removed: removedFileFences)
        statements += Self.tourStatements(tours, removed: removedTours)
        for alert in alerts {
            statements.append((JournalSQL.insertTransition, alert.binds))
            // Queued with the alert itself: a kill -9 loses neither or both (docs/webhooks.md "Webhooks").
            for webhook in alert.webhooks {
                statements.append((JournalSQL.insertOutbox, alert.outboxBinds(webhook: webhook, queuedAt: updatedAt)))
            }
        }
        for device in removedDevices { statements.append((JournalSQL.deleteDevice, [.text(device)])) }
        for row in devices {
            statements.append((JournalSQL.upsertDevice, [.text(row.device), .blob(row.state), .float(updatedAt)]))
        }
        try locked {
            // A single statement is atomic on its own.
            if statements.count == 1 {
                try db.run(statements[0].sql, statements[0].binds)
            } else {
                try db.transaction {
                    for statement in statements { try db.run(statement.sql, statement.binds) }
                }
            }
        }
    }
}
