/// Journal failures of its own; SQLite's errors pass through as `SQLiteError`.
public enum JournalError: Error, Equatable, CustomStringConvertible {
    /// Used after ``Journal/close()``.
    case closed(path: String)
    /// The file was written by a newer FleetFence; reading it could misread or overwrite its data.
    case schemaTooNew(path: String, found: Int, supported: Int)
    /// A row whose column is missing or of the wrong type: the file was edited by hand or is damaged.
    case malformedRow(table: String, column: String)
    /// SQLite's `quick_check` found damage: the service refuses it rather than resetting it.
    case damaged(path: String, report: String)
    /// The file (or its folder, where the WAL goes) cannot be written.
    case notWritable(path: String, reason: String)
    /// The file was deleted or replaced while open: what is written goes nowhere.
    case fileGone(path: String, reason: String)

    public var description: String {
        switch self {
        case .closed(let path):
            "journal \(path) is closed"
        case .schemaTooNew(let path, let found, let supported):
            "journal \(path) has schema version \(found); this build reads up to \(supported)"
        case .malformedRow(let table, let column):
            "journal row in \(table) has no usable \(column)"
        case .damaged(let path, let report):
            "journal \(path) is damaged (SQLite quick_check: \(report)); restore it from a copy, or move it "
                + "away to start with an empty journal"
        case .notWritable(let path, let reason):
            "journal \(path) cannot be written (\(reason)); check the permissions of the file and its folder, "
                + "and the free space"
        case .fileGone(let path, let reason):
            "journal \(path) is gone (\(reason)); the next start begins an empty journal, numbering each "
                + "device's alerts from 1 again"
        }
    }
}
