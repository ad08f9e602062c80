import Logging
import Synchronization

/// The SQLite journal of alerted transitions and device state: the service rebuilds its devices from it at
/// start, also after kill -9, and people ask it "which truck was at which warehouse, when".
///
/// Synchronous: call it from a plain thread, not from an event loop or a Swift concurrency task that must
/// not block. Safe to share between threads: one lock serializes all statements, because a transaction is
/// several statements on one connection and another thread's statement must not land inside it.
public final class Journal: Sendable {
    public let path: String
    let db: SQLiteConnection
    let logger: Logger
    /// WAL frames past which `checkpointIfDue(idle: true)` checkpoints (SQLite's own threshold).
    let checkpointFrames: Int
    /// Past this many `checkpointIfDue` checkpoints also when not idle: a writer that is never
    /// idle must not let the WAL grow for good.
    let forcedCheckpointFrames: Int
    private let isClosed = Mutex(false)

    /// Opens or creates the journal at `path` (relative to the working directory).
    ///
    /// WAL with `synchronous=NORMAL`: a commit is appended to the WAL file by write(2) and is then in the
    /// kernel's page cache, so it survives the process dying in any way, kill -9 included; the next open
    /// replays the WAL. Only an OS crash or power loss before the next checkpoint can lose the most recent
    /// commits (never corrupt the file). `FULL` would add an fsync per commit to close that gap, at a cost
    /// the per-transition write path does not need.
    ///
    /// Checkpoints are the caller's, who must call `checkpointIfDue` after acting on each write
    /// (the journal pipeline does, after publishing), or the WAL grows for good. Not SQLite's:
    /// its automatic checkpoint runs inside the commit that crosses the threshold,
    /// and the alerts of that commit waited 10 ms and more for its fsyncs.
    public init(
        path: String, logger: Logger = Logger(label: "fleetfence.journal"), checkpointFrames: Int = 1_000,
        forcedCheckpointFrames: Int = 8_000
    ) throws {
        let db = try SQLiteConnection.open(path: path)
        do {
            let mode = try db.run("PRAGMA journal_mode = WAL").first?.column("journal_mode")?.stringValue
            if mode?.lowercased() != "wal" {
                logger.warning(
                    "journal is not in WAL mode; writes are slower and a reader blocks the writer",
                    metadata: ["path": "\(path)", "journal_mode": "\(mode ?? "unknown")"])
            }
            try db.run("PRAGMA synchronous = NORMAL")
            try JournalSchema.prepare(db, path: path)
            db.takeOverCheckpoints()
        } catch {
            try? db.close()
            throw error
        }
        self.path = path
        self.db = db
        self.logger = logger
        self.checkpointFrames = checkpointFrames
        self.forcedCheckpointFrames = forcedCheckpointFrames
    }

    /// Copies the WAL into the main file once it holds `checkpointFrames` frames when `idle`
    /// (nothing waits to be written, so its fsyncs delay no commit), `forcedCheckpointFrames`
    /// otherwise. Call it after each write has been acted on. Returns whether it ran.
    @discardableResult
    public func checkpointIfDue(idle: Bool) -> Bool {
        (try? locked { () -> Bool in
            guard db.walFrames >= (idle ? checkpointFrames : forcedCheckpointFrames) else { return false }
            checkpoint()
            return true
        }) ?? false
    }

    /// Under the lock. A failure is only logged: the WAL stays, is checkpointed later and in any
    /// case replayed at the next open.
    func checkpoint(_ mode: SQLiteConnection.CheckpointMode = .passive) {
        do {
            try db.checkpoint(mode)
        } catch {
            logger.warning("journal checkpoint failed", metadata: ["path": "\(path)", "error": "\(error)"])
        }
    }

    /// Checkpoints the WAL into the main file and closes. Later calls do nothing.
    public func close() throws {
        try isClosed.withLock { closed in
            guard !closed else { return }
            closed = true
            // A single self-contained file is left behind for copying or inspection.
            checkpoint(.truncate)
            try db.close()
        }
    }

    /// Runs `body` under the lock, refusing after close().
    func locked<T: Sendable>(_ body: () throws -> T) throws -> T {
        try isClosed.withLock { closed in
            if closed { throw JournalError.closed(path: path) }
            return try body()
        }
    }
}
