import Foundation

extension Journal {
    /// Appends `transitions`, upserts `devices`, `fences` and the record of the fences file
    /// (`fileFences`: id to encoded definition), deletes `removedDevices`, `removedFences` and
    /// `removedFileFences`, all in one transaction: after a crash the journal holds all of a call
    /// or none of it. Removals apply before upserts.
    public func write(
        transitions: [JournalTransition], devices: [JournalDeviceRow], removedDevices: [String] = [],
        fences: [JournalFenceRow] = [], removedFences: [String] = [],
        fileFences: [String: [UInt8]] = [:], removedFileFences: [String] = []
    ) throws {
        if transitions.isEmpty && devices.isEmpty && removedDevices.isEmpty && fences.isEmpty && removedFences.isEmpty
            && fileFences.isEmpty && removedFileFences.isEmpty
        {
            return
        }
        let updatedAt = Date().timeIntervalSince1970
        // Fences first: a removal's exits and the removal itself land in one transaction.
        var statements = Self.fenceStatements(fences, removed: removedFences, updatedAt: updatedAt)
        statements += Self.fileFenceStatements(fileFences, removed: removedFileFences)
        for transition in transitions { statements.append((JournalSQL.insertTransition, transition.binds)) }
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

extension JournalTransition {
    /// In the column order of ``JournalSQL/transitionColumns``.
    var binds: [SQLiteData] {
        [
            .text(device), .text(fence), .text(event), .float(at), .float(confirmedAt), .float(lat), .float(lon),
            .integer(seq), reason.map { .text($0) } ?? .null,
            durationSeconds.map { .float($0) } ?? .null, dwellSeconds.map { .float($0) } ?? .null,
            Self.alertData(alertJSON),
        ]
    }

    /// Text when it round-trips exactly (valid UTF-8 without NUL), so JSON functions work on it; otherwise
    /// a blob, so the published bytes are still kept as they were.
    static func alertData(_ bytes: [UInt8]) -> SQLiteData {
        if !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) {
            return .text(text)
        }
        return .blob(bytes)
    }
}
