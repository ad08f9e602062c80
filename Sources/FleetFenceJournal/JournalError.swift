/// Journal failures of its own; SQLite's errors pass through as `SQLiteError`.
public enum JournalError: Error, Equatable, CustomStringConvertible {
    /// Used after ``Journal/close()``.
    case closed(path: String)
    /// The file was written by a newer FleetFence; reading it could misread or overwrite its data.
    case schemaTooNew(path: String, found: Int, supported: Int)
    /// A row whose column is missing or of the wrong type: the file was edited by hand or is damaged.
    case malformedRow(table: String, column: String)

    public var description: String {
        switch self {
        case .closed(let path):
            "journal \(path) is closed"
        case .schemaTooNew(let path, let found, let supported):
            "journal \(path) has schema version \(found); this build reads up to \(supported)"
        case .malformedRow(let table, let column):
            "journal row in \(table) has no usable \(column)"
        }
    }
}
