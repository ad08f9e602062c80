import Foundation
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
    /// WAL frames not yet copied into the file past which `checkpointIfDue()` asks the
    /// checkpointer for a pass, and twice this, the WAL's length past which the journal's
    /// connection finishes a pass so that the WAL starts over. Each finish costs the writer two
    /// fsyncs (21 ms at the median in the soak, however few frames are left), so every other
    /// pass is finished, not each. 3,000: twice it leaves 2,000 frames below the forced
    /// checkpoint for what is committed during a pass (205 at the median in the soak, 1,463 at
    /// most). Not SQLite's 1,000: fleetbench's latency phase (14,000 frames a second)
    /// checkpointed 120-160 times in 13 s, 1.8-2.0 s of CPU; at 4,000, 34-44 times and 1.2-1.4 s
    /// (a checkpoint copies each page once, however many frames of it the WAL holds).
    let checkpointFrames: Int
    /// Past this many the journal's connection checkpoints itself, waiting for a pass that runs:
    /// a checkpointer that falls behind must not let the WAL grow for good.
    let forcedCheckpointFrames: Int
    /// Copies the WAL beside the writer's commits; `nil` for a reader.
    private let checkpointer: Checkpointer?
    /// What `checkpointIfDue()` knows of the WAL between calls.
    private struct WALProgress {
        /// Frames of the current WAL already in the file.
        var copied = 0
        /// The WAL's generation `copied` counts in, and the one the pass asked for last began in.
        var generation = 0
        var passGeneration = 0
    }
    private let wal = Mutex(WALProgress())
    private let isClosed = Mutex(false)
    /// The last alert's row id: `write` gives ids itself, so that an id is never reused, even
    /// after retention emptied the table (``PublishedMark`` counts on it).
    let alertIDs = Mutex<Int64>(0)
    /// The `clock_log` rows held (`ClockLog`), by id: `write` gives ids itself, one after the
    /// other, so the rows are `first...last` and a fold's deletion is a range that ends when it
    /// reaches the fold's row.
    struct ClockLogRows {
        var first: Int64 = 1
        var last: Int64 = 0
    }
    let clockLogRows = Mutex(ClockLogRows())
    /// A reader's connection: closing it must not checkpoint.
    let readOnly: Bool
    /// Bytes the WAL may grow to before its forced checkpoint: the free space the journal needs
    /// (``diskShortfall()``). 0 for a reader.
    let walRoom: UInt64
    /// The file's device and inode once opened: a file deleted or replaced under the service is
    /// written to no more (``fileGone()``).
    let fileIdentity: FileIdentity?

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
    /// and the alerts of that commit waited 10 ms and more for its fsyncs. Most of the copying
    /// is a ``Checkpointer``'s, on a thread of its own.
    public convenience init(
        path: String, logger: Logger = Logger(label: "fleetfence.journal"), checkpointFrames: Int = 3_000,
        forcedCheckpointFrames: Int = 8_000
    ) throws {
        try self.init(
            path: path, logger: logger, checkpointFrames: checkpointFrames, forcedCheckpointFrames: forcedCheckpointFrames,
            beforeCheckpointPass: {})
    }

    /// As above; `beforeCheckpointPass` runs on the checkpointer's thread before each pass (tests
    /// stall passes with it).
    init(
        path: String, logger: Logger, checkpointFrames: Int, forcedCheckpointFrames: Int,
        beforeCheckpointPass: @escaping @Sendable () -> Void
    ) throws {
        // A pass is finished at twice its threshold, which must come before the forced checkpoint.
        precondition(2 * checkpointFrames < forcedCheckpointFrames, "checkpointFrames too large for forcedCheckpointFrames")
        let db = try SQLiteConnection.open(path: path)
        do {
            try Self.checkIntegrity(db, path: path)
            let mode = try db.run("PRAGMA journal_mode = WAL").first?.column("journal_mode")?.stringValue
            if mode?.lowercased() != "wal" {
                logger.warning(
                    "journal is not in WAL mode; writes are slower and a reader blocks the writer",
                    metadata: ["path": "\(path)", "journal_mode": "\(mode ?? "unknown")"])
            }
            try db.run("PRAGMA synchronous = NORMAL")
            // Debian builds SQLite with secure_delete on: every page freed is zeroed through the
            // WAL, so deleting the clock log's folded rows (megabytes of overflow pages a minute in
            // the soak's fleet) wrote them a second time. FAST still zeroes a deleted row on its
            // own page (a forgotten device's record, a pruned alert), where that costs no write.
            try db.run("PRAGMA secure_delete = FAST")
            // Each WAL frame is a page and a 24-byte header.
            let pageSize = try db.run("PRAGMA page_size").first?.column("page_size")?.int64Value ?? 4096
            walRoom = UInt64(forcedCheckpointFrames) * UInt64(max(512, pageSize) + 24)
            // A full disk is refused at start like a read-only one. SQLite's writes go into WAL
            // pages already allocated, so the test write below can succeed on a full disk and the
            // first busy second fail; a service restarted by its supervisor meanwhile would take
            // positions from its session and die with them.
            if let reason = Self.shortfall(path: path, walRoom: walRoom) {
                throw JournalError.notWritable(path: path, reason: reason)
            }
            try JournalSchema.prepare(db, path: path)
            // A real write at start: a read-only file or folder is refused now, not after the
            // first alert (docs/operations.md "Limits and failures").
            try db.run(
                "INSERT OR REPLACE INTO journal_meta (key, value) VALUES ('opened_at', ?)",
                [.text(String(Date().timeIntervalSince1970))])
            db.takeOverCheckpoints()
            let lastRow = try db.run("SELECT MAX(id) AS id FROM transitions").first?.column("id")?.int64Value ?? 0
            let marked = try db.run("SELECT value FROM journal_meta WHERE key = ?", [.text(PublishedMark.key)])
                .first?.optionalText("value").flatMap(PublishedMark.init(encoded:))?.alertID ?? 0
            alertIDs.withLock { $0 = max(lastRow, marked) }
            let logRows = try db.run("SELECT MIN(id) AS first, MAX(id) AS last FROM clock_log").first
            let lastLogRow = logRows?.column("last")?.int64Value ?? 0
            clockLogRows.withLock { $0 = ClockLogRows(first: logRows?.column("first")?.int64Value ?? 1, last: lastLogRow) }
            fileIdentity = FileIdentity(path: path)
            // Last: nothing after it throws, so a failed open leaves no thread behind.
            checkpointer = try Checkpointer(path: path, logger: logger, beforePass: beforeCheckpointPass)
        } catch {
            try? db.close()
            if let error = error as? SQLiteError {
                if error.isDamage { throw JournalError.damaged(path: path, report: error.message) }
                if error.isReadOnly { throw JournalError.notWritable(path: path, reason: error.message) }
            }
            throw error
        }
        self.path = path
        self.db = db
        self.logger = logger
        self.checkpointFrames = checkpointFrames
        self.forcedCheckpointFrames = forcedCheckpointFrames
        self.readOnly = false
    }

    /// The journal at `path` for reading only (the HTTP interface's history, `fleetfence events`):
    /// a connection of its own, so a reader never waits for the writer's lock; SQLite's WAL lets
    /// it read while the service writes. It neither migrates nor checkpoints.
    public init(readingOnly path: String, logger: Logger = Logger(label: "fleetfence.journal")) throws {
        let db = try SQLiteConnection.open(path: path, readOnly: true)
        do {
            let found = Int(try db.run("PRAGMA user_version").first?.column("user_version")?.int64Value ?? 0)
            if found > JournalSchema.version {
                throw JournalError.schemaTooNew(path: path, found: found, supported: JournalSchema.version)
            }
            if found < JournalSchema.version {
                throw JournalError.notWritable(path: path, reason: "schema version \(found) predates this build; "
                    + "start fleetfence serve on it once to bring it up to date")
            }
        } catch {
            try? db.close()
            throw error
        }
        self.path = path
        self.db = db
        self.logger = logger
        self.checkpointFrames = .max
        self.forcedCheckpointFrames = .max
        self.checkpointer = nil
        self.readOnly = true
        self.walRoom = 0
        self.fileIdentity = nil
    }

    /// Why the journal's file system lacks room for the WAL to reach its forced checkpoint, or
    /// `nil` when it has room (or cannot be asked). A statvfs and a stat: a few microseconds.
    static func shortfall(path: String, walRoom needed: UInt64) -> String? {
        let directory = (path as NSString).deletingLastPathComponent
        var stats = statvfs()
        guard statvfs(directory.isEmpty ? "." : directory, &stats) == 0 else { return nil }
        let free = UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
        let walSize = ((try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size]) as? NSNumber)?.uint64Value ?? 0
        guard walSize < needed, free < needed - walSize else { return nil }
        let mebibytes = { (bytes: UInt64) in String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        return "its file system has \(mebibytes(free)) free; the write-ahead log needs up to \(mebibytes(needed - walSize)) more"
    }

    /// Why the journal's file is no longer the one opened, or `nil`. A file deleted under the
    /// service took every later commit with it, and the next start began a new journal: `seq` from
    /// 1 again, alerts receivers had already taken as repeats. A stat before every write: 1.25 µs on
    /// this project's machine, beside an alert transaction's 170-290 µs (docs/performance.md).
    func fileGone() -> String? {
        guard let fileIdentity else { return nil }
        guard let now = FileIdentity(path: path) else { return "its file was deleted while the service ran" }
        return now == fileIdentity ? nil : "its file was replaced while the service ran"
    }

    /// Why the journal's file system is too full to go on, or `nil`: the same test as at start.
    /// The service asks every second, and stops cleanly before a write fails.
    public func diskShortfall() -> String? {
        readOnly ? nil : Self.shortfall(path: path, walRoom: walRoom)
    }

    /// SQLite's `quick_check`: damage found at start is a refusal, never a silent reset.
    private static func checkIntegrity(_ db: SQLiteConnection, path: String) throws {
        let report = try db.run("PRAGMA quick_check").compactMap { $0.column("quick_check")?.stringValue }
        guard report == ["ok"] else {
            throw JournalError.damaged(path: path, report: report.prefix(5).joined(separator: "; "))
        }
    }

    /// Keeps the WAL short without making a commit wait for a whole checkpoint. Call it after
    /// each write has been acted on (on the writer's thread). Once `checkpointFrames` frames wait
    /// to be copied it asks the ``Checkpointer`` for a pass; once a pass has ended and the WAL
    /// is twice that long, it copies what was committed during the pass itself (a few hundred
    /// frames), so that its next commit starts the WAL over; past `forcedCheckpointFrames` it
    /// checkpoints at once, after any pass running. Returns whether it checkpointed itself.
    @discardableResult
    public func checkpointIfDue() -> Bool {
        (try? locked { () -> Bool in
            guard let checkpointer else { return false }
            return wal.withLock { wal in
                var frames = db.walFrames
                let generation = db.walGeneration
                if generation != wal.generation { (wal.copied, wal.generation) = (0, generation) }
                // A pass asked for in an earlier generation counted frames that are gone.
                if let result = checkpointer.takeFinishedPass(), wal.passGeneration == generation {
                    if result.complete, result.frames == frames {
                        // Nothing committed since: the next commit starts the WAL over.
                        db.walWasCheckpointed()
                        (wal.copied, wal.generation, frames) = (0, db.walGeneration, 0)
                    } else {
                        wal.copied = result.checkpointed
                    }
                    if frames >= 2 * checkpointFrames {
                        checkpointer.checkpointingAlone { finish(&wal) }
                        return true
                    }
                }
                if frames >= forcedCheckpointFrames {
                    checkpointer.checkpointingAlone { finish(&wal) }
                    return true
                }
                if frames - wal.copied >= checkpointFrames, checkpointer.request() { wal.passGeneration = generation }
                return false
            }
        }) ?? false
    }

    /// A checkpoint on the journal's own connection: commits wait for it.
    private func finish(_ progress: inout WALProgress) {
        guard let result = checkpoint() else { return }
        progress.copied = result.complete ? 0 : result.checkpointed
        progress.generation = db.walGeneration
    }

    /// Passes the checkpointer has run, for tests.
    var checkpointPasses: Int { checkpointer?.passes ?? 0 }

    /// The checkpointer's flushes of the file after its passes, for tests.
    var checkpointFlushes: Int { checkpointer?.flushes ?? 0 }

    /// Under the lock, and inside ``Checkpointer/checkpointingAlone(_:)`` or after the
    /// checkpointer stopped: no pass may start right after it (the WAL-reset bug, see
    /// `Checkpointer`). A failure is only logged: the WAL stays, is checkpointed later and in any
    /// case replayed at the next open.
    @discardableResult
    private func checkpoint(_ mode: SQLiteConnection.CheckpointMode = .passive) -> SQLiteConnection.CheckpointResult? {
        do {
            return try db.checkpoint(mode)
        } catch {
            logger.warning("journal checkpoint failed", metadata: ["path": "\(path)", "error": "\(error)"])
            return nil
        }
    }

    /// Checkpoints the WAL into the main file and closes. Later calls do nothing.
    public func close() throws {
        try isClosed.withLock { closed in
            guard !closed else { return }
            closed = true
            checkpointer?.stop()
            // A single self-contained file is left behind for copying or inspection.
            if !readOnly { checkpoint(.truncate) }
            try db.close()
        }
    }

    /// A journal dropped without `close()` (a test's) ends its checkpointer's thread too.
    deinit {
        checkpointer?.stop()
    }

    /// Runs `body` under the lock, refusing after close().
    /// The value of `journal_meta`'s row `key`: the marks kept beside the tables (the published
    /// mark, the fences file's digest, Home Assistant's discovery).
    func metaValue(_ key: String) throws -> String? {
        try locked { try db.run("SELECT value FROM journal_meta WHERE key = ?", [.text(key)]) }.first?.optionalText("value")
    }

    func locked<T: Sendable>(_ body: () throws -> T) throws -> T {
        try isClosed.withLock { closed in
            if closed { throw JournalError.closed(path: path) }
            return try body()
        }
    }
}

/// A file's device and inode: what stays the same while it is the same file.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
