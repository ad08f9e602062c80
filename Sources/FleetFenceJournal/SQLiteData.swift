import CSQLite3
/// A value bound to or read from SQLite, one case per storage class.
enum SQLiteData: Sendable, Equatable {
    case null
    case integer(Int64)
    case float(Double)
    case text(String)
    case blob([UInt8])

    var int64Value: Int64? {
        if case let .integer(value) = self { return value }
        return nil
    }

    /// A REAL, or an INTEGER read as a Double (SQLite stores 200.0 in a REAL column as REAL, but
    /// an expression such as MAX() can hand back either).
    var doubleValue: Double? {
        switch self {
        case let .float(value): value
        case let .integer(value): Double(value)
        default: nil
        }
    }

    var stringValue: String? {
        if case let .text(value) = self { return value }
        return nil
    }
}

/// One result row: values by column name.
struct SQLiteRow: Sendable {
    let names: [String]
    let values: [SQLiteData]

    /// The named column's value, `nil` when the statement has no such column.
    func column(_ name: String) -> SQLiteData? {
        names.firstIndex(of: name).map { values[$0] }
    }
}

/// An SQLite result code other than success, with SQLite's own message.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    var code: Int32
    var message: String
    var description: String { "SQLite error \(code): \(message)" }

    /// Not a database, or a damaged one.
    var isDamage: Bool {
        let primary = code & 0xFF
        return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
    }

    /// The file, its folder (where the WAL and its index go) or the disk refuses writes.
    var isReadOnly: Bool {
        let primary = code & 0xFF
        return primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN || primary == SQLITE_PERM
            || primary == SQLITE_FULL || primary == SQLITE_IOERR
    }
}
