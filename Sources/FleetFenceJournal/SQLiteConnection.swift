import CSQLite3
import Synchronization

/// One connection to Debian's libsqlite3, used synchronously on the calling thread: a statement
/// runs where it is called, with no hand-off to another thread. Prepared statements are kept by
/// their text and reused. Each call is serialized by one lock; a transaction spans several calls,
/// so its caller must keep other threads out meanwhile (the journal's own lock does).
final class SQLiteConnection: Sendable {
    /// The handles are used only inside the mutex.
    private struct State: @unchecked Sendable {
        var handle: OpaquePointer?
        var statements = StatementCache(limit: SQLiteConnection.cachedStatements)
        /// Written by SQLite's WAL hook after each commit, inside a step under the lock.
        let wal: UnsafeMutablePointer<WALCount>
    }

    /// Distinct statement texts kept prepared (see `StatementCache`).
    private static let cachedStatements = 64
    private let state: Mutex<State>

    private init(handle: OpaquePointer) {
        let wal = UnsafeMutablePointer<WALCount>.allocate(capacity: 1)
        wal.initialize(to: WALCount())
        state = Mutex(State(handle: handle, wal: wal))
    }

    static func open(path: String, readOnly: Bool = false) throws -> SQLiteConnection {
        var handle: OpaquePointer?
        // No mutex of SQLite's own: every use is under this type's lock.
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: code, message: "cannot open \(path): \(message)")
        }
        // Waits for another process's lock (someone in the sqlite3 shell) instead of failing.
        sqlite3_busy_timeout(handle, 5_000)
        return SQLiteConnection(handle: handle)
    }

    /// Runs one statement and returns its rows.
    @discardableResult
    func run(_ sql: String, _ binds: [SQLiteData] = []) throws -> [SQLiteRow] {
        try state.withLock { state in try Self.run(sql, binds, state: &state) }
    }

    private static func run(_ sql: String, _ binds: [SQLiteData], state: inout State) throws -> [SQLiteRow] {
        guard let handle = state.handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "connection closed") }
        let statement = try prepared(sql, handle: handle, state: &state)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(binds, to: statement, handle: handle)
        return try rows(of: statement, handle: handle)
    }

    /// Runs `body` inside one transaction; IMMEDIATE takes the write lock up front, so a concurrent
    /// writer in another process makes it wait at BEGIN instead of failing halfway.
    @discardableResult
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            _ = try? run("ROLLBACK")
            throw error
        }
    }

    /// Frames in the WAL after the last commit, once `takeOverCheckpoints()` was called.
    var walFrames: Int { state.withLock { Int($0.wal.pointee.frames) } }

    /// Times the WAL started over (or was copied whole, so that the next commit starts it
    /// over): a checkpoint's frame numbers are those of one generation of the WAL.
    var walGeneration: Int { state.withLock { $0.wal.pointee.generation } }

    /// What the WAL hook counts.
    struct WALCount {
        var frames: Int32 = 0
        var generation = 0

        /// The WAL has been copied whole: the next commit starts it over.
        mutating func copied() {
            frames = 0
            generation += 1
        }
    }

    /// Stops SQLite's automatic checkpoint, which runs inside the commit that crosses 1,000 WAL
    /// frames and makes that commit wait for its fsyncs, and counts the frames instead
    /// (`walFrames`): the caller checkpoints when it suits it, and must, or the WAL grows.
    func takeOverCheckpoints() {
        state.withLock { state in
            guard let handle = state.handle else { return }
            sqlite3_wal_hook(handle, { context, _, _, frames in
                guard let count = context?.assumingMemoryBound(to: WALCount.self) else { return SQLITE_OK }
                // Fewer frames than before: this commit started the WAL over. (One that started
                // it over with more frames than it had goes unseen; the forced checkpoint still
                // bounds the WAL.)
                if frames < count.pointee.frames { count.pointee.generation += 1 }
                count.pointee.frames = frames
                return SQLITE_OK
            }, UnsafeMutableRawPointer(state.wal))
        }
    }

    enum CheckpointMode: String {
        /// Never waits for readers or the writer lock.
        case passive = "PASSIVE"
        /// Waits for readers, then empties the WAL file: one self-contained file is left.
        case truncate = "TRUNCATE"
    }

    /// How far a checkpoint got: the WAL's frames when it began and how many of them are in the
    /// main file now.
    struct CheckpointResult: Sendable, Equatable {
        var frames: Int
        var checkpointed: Int
        /// Every frame copied: the next commit starts the WAL over.
        var complete: Bool
    }

    /// Runs a checkpoint. Once it copied every frame, the next commit starts the WAL over and
    /// `walFrames` counts from 0.
    @discardableResult
    func checkpoint(_ mode: CheckpointMode = .passive) throws -> CheckpointResult {
        try state.withLock { state in
            let row = try Self.run("PRAGMA wal_checkpoint(\(mode.rawValue))", [], state: &state).first
            let frames = Int(row?.column("log")?.int64Value ?? -1)
            let checkpointed = Int(row?.column("checkpointed")?.int64Value ?? -1)
            // A reader still on older frames (someone in the sqlite3 shell) keeps it partial.
            let complete = row?.column("busy")?.int64Value == 0 && frames == checkpointed
            if complete { state.wal.pointee.copied() }
            return CheckpointResult(frames: frames, checkpointed: checkpointed, complete: complete)
        }
    }

    /// Flushes the database file to disk through SQLite's own handle of it: a descriptor of our
    /// own, once closed, would release every POSIX lock this process holds on the file, SQLite's
    /// included (sqlite.org/howtocorrupt.html, "Posix advisory locks canceled").
    func syncFile() throws {
        try state.withLock { state in
            guard let handle = state.handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "connection closed") }
            var file: UnsafeMutablePointer<sqlite3_file>?
            let found = sqlite3_file_control(handle, "main", SQLITE_FCNTL_FILE_POINTER, &file)
            guard found == SQLITE_OK, let file, let sync = file.pointee.pMethods?.pointee.xSync else {
                throw SQLiteError(code: found == SQLITE_OK ? SQLITE_MISUSE : found, message: "no file to sync")
            }
            let code = sync(file, SQLITE_SYNC_NORMAL)
            guard code == SQLITE_OK else { throw SQLiteError(code: code, message: "syncing the database file failed") }
        }
    }

    /// Another connection's checkpoint copied every frame this one committed: its next commit
    /// starts the WAL over, so `walFrames` counts from 0 as after a checkpoint of its own.
    func walWasCheckpointed() {
        state.withLock { $0.wal.pointee.copied() }
    }

    /// Prepared statements held, for tests of the cache's bound.
    var cachedStatementCount: Int { state.withLock { $0.statements.count } }

    /// Finalizes the statements and closes. Later calls do nothing.
    /// Rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int {
        state.withLock { state in state.handle.map { Int(sqlite3_changes($0)) } ?? 0 }
    }

    func close() throws {
        try state.withLock { state in
            guard let handle = state.handle else { return }
            state.statements.finalizeAll()
            let code = sqlite3_close(handle)
            guard code == SQLITE_OK else { throw SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle))) }
            state.handle = nil
            state.wal.pointee = WALCount()
        }
    }

    deinit {
        state.withLock { state in
            if let handle = state.handle {
                state.statements.finalizeAll()
                sqlite3_close_v2(handle)
            }
            state.wal.deallocate()
        }
    }

    // MARK: Statements

    private static func prepared(_ sql: String, handle: OpaquePointer, state: inout State) throws -> OpaquePointer {
        if let statement = state.statements.statement(for: sql) { return statement }
        var statement: OpaquePointer?
        var rest: UnsafePointer<CChar>?
        let code = sql.withCString { text in
            let code = sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &rest)
            // SQLite prepares the first statement of a text; the rest would be dropped unseen.
            if code == SQLITE_OK, let rest, String(cString: rest).contains(where: { !$0.isWhitespace && $0 != ";" }) {
                return SQLITE_MISUSE
            }
            return code
        }
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            if code == SQLITE_MISUSE { throw SQLiteError(code: code, message: "more than one statement in: \(sql)") }
            throw error(code, handle)
        }
        state.statements.insert(statement, for: sql)
        return statement
    }

    private static func bind(_ binds: [SQLiteData], to statement: OpaquePointer, handle: OpaquePointer) throws {
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard binds.count == expected else {
            throw SQLiteError(code: SQLITE_RANGE, message: "\(binds.count) values bound to \(expected) parameters")
        }
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(statement, index)
            case let .integer(x): code = sqlite3_bind_int64(statement, index, x)
            case let .float(x): code = sqlite3_bind_double(statement, index, x)
            case var .text(text):
                code = text.withUTF8 { bytes in
                    // A null pointer would bind NULL, not the empty string.
                    guard let base = bytes.baseAddress else {
                        return sqlite3_bind_text(statement, index, "", 0, fleetfence_sqlite_transient())
                    }
                    return sqlite3_bind_text(statement, index, base, Int32(bytes.count), fleetfence_sqlite_transient())
                }
            case let .blob(bytes):
                code = bytes.withUnsafeBytes { raw in
                    guard let base = raw.baseAddress else { return sqlite3_bind_zeroblob(statement, index, 0) }
                    return sqlite3_bind_blob(statement, index, base, Int32(raw.count), fleetfence_sqlite_transient())
                }
            }
            guard code == SQLITE_OK else { throw error(code, handle) }
        }
    }

    private static func rows(of statement: OpaquePointer, handle: OpaquePointer) throws -> [SQLiteRow] {
        var rows: [SQLiteRow] = []
        var names: [String]?
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else { throw error(code, handle) }
            let count = sqlite3_column_count(statement)
            let columnNames = names ?? (0..<count).map { String(cString: sqlite3_column_name(statement, $0)) }
            names = columnNames
            rows.append(SQLiteRow(names: columnNames, values: (0..<count).map { value(statement, column: $0) }))
        }
    }

    private static func value(_ statement: OpaquePointer, column: Int32) -> SQLiteData {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .float(sqlite3_column_double(statement, column))
        // The pointer first, then its length: SQLite's documented order.
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let blob = sqlite3_column_blob(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let blob else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: blob, count: count)))
        default: return .null
        }
    }

    private static func error(_ code: Int32, _ handle: OpaquePointer) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }
}
