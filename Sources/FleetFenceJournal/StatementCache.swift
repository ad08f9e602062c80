import CSQLite3

/// Prepared statements of one connection, kept by their text. The statement used last is also
/// kept apart: a batch runs the same statement thousands of times in a row, and comparing with
/// the same text is one pointer check where a lookup hashes the whole of it every time.
struct StatementCache {
    private var statements: [String: OpaquePointer] = [:]
    private var last: (sql: String, statement: OpaquePointer)?
    /// More distinct texts than this (values written into the text, as a migration's
    /// `user_version` or a caller's ad-hoc query) empty the cache.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    var count: Int { statements.count }

    mutating func statement(for sql: String) -> OpaquePointer? {
        if let last, last.sql == sql { return last.statement }
        guard let statement = statements[sql] else { return nil }
        last = (sql, statement)
        return statement
    }

    /// Keeps `statement`, first finalizing every other one if the cache is full.
    mutating func insert(_ statement: OpaquePointer, for sql: String) {
        if statements.count >= limit { finalizeAll() }
        statements[sql] = statement
        last = (sql, statement)
    }

    mutating func finalizeAll() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements.removeAll(keepingCapacity: true)
        last = nil
    }
}
