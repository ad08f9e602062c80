import Dispatch
import Foundation
import Logging
import Synchronization

/// Copies the journal's WAL into its main file on a thread and connection of its own, so that
/// the copy and its two fsyncs delay no commit: in the soak's fleet the writer checkpointed about
/// twice a second itself, 42 ms at the median and up to 276 ms, and every alert that came
/// meanwhile waited (docs/operations.md "Journal"; the figures are in docs/performance.md).
///
/// A pass on another connection cannot start the WAL over: SQLite rewinds it only when a commit
/// begins with every frame copied and no reader on it, and under steady writes some frames
/// always land during the pass (left alone, the WAL grew to 332 MB in 18 s of commits 1 ms
/// apart). So the journal's own connection finishes every other pass: it copies the frames
/// committed meanwhile, a few hundred, and its next commit rewinds (`Journal.checkpointIfDue()`).
///
/// No pass may start right after a complete checkpoint while a commit may rewind the WAL: in
/// SQLite before 3.51.3 (Debian 12 has 3.40.1) such a pass can record frames as copied that the
/// rewind replaced, and corrupt the file (sqlite.org/wal.html, "the WAL-reset bug"). A pass is
/// only asked for with frames waiting, and one that waits to start while the journal's
/// connection checkpoints is dropped (``checkpointingAlone(_:)``).
///
/// After a pass this thread also flushes the journal's file itself. SQLite syncs the file after a
/// checkpoint only when it copied the whole WAL, which a pass beside steady commits never does;
/// so the journal's connection, finishing, flushed everything the passes had copied, the alerts
/// meanwhile waiting: in fleetbench's latency phase the finishes took 618 ms, 542 of them in
/// fsyncs, the file's 6.2 ms a flush on average and the WAL's 0.7 (docs/performance.md "Where an
/// alert waits").
final class Checkpointer: Sendable {
    private struct State {
        /// Asked for and not yet ended (waiting to start, or copying).
        var running = false
        /// Asked for, then overtaken by a checkpoint of the journal's own connection.
        var cancelled = false
        /// How far the last pass got, until taken; a failed pass leaves nothing (the next
        /// call asks again).
        var finished: SQLiteConnection.CheckpointResult?
        var stopping = false
        var threadEnded = false
        var passes = 0
        /// Flushes of the file after a pass.
        var flushes = 0
    }

    private let connection: SQLiteConnection
    private let logger: Logger
    private let state = Mutex(State())
    /// Held by every checkpoint of the journal, this thread's and the journal connection's:
    /// SQLite runs one at a time, and a pass's end is recorded before it is let go.
    private let checkpointLock = Mutex(())
    private let wake = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)
    /// Called on the checkpointer's thread before each pass: tests stall passes with it.
    private let beforePass: @Sendable () -> Void

    /// A connection of its own to `path`, a journal in WAL mode that another connection writes.
    init(path: String, logger: Logger, beforePass: @escaping @Sendable () -> Void = {}) throws {
        connection = try SQLiteConnection.open(path: path)
        self.logger = logger
        self.beforePass = beforePass
        Thread.detachNewThread { [self] in
            // Linux keeps 15 bytes of a thread's name and refuses a longer one.
            Thread.current.name = "wal-checkpoint"
            run()
        }
    }

    /// Asks for a pass; nothing (false) when one is asked for already or waits to be finished.
    func request() -> Bool {
        let start = state.withLock { state in
            guard !state.running, state.finished == nil, !state.stopping else { return false }
            state.running = true
            return true
        }
        if start { wake.signal() }
        return start
    }

    /// The pass that ended since the last call, taken.
    func takeFinishedPass() -> SQLiteConnection.CheckpointResult? {
        state.withLock { state in
            defer { state.finished = nil }
            return state.finished
        }
    }

    /// Runs `checkpoint` (on the journal's own connection) once no pass copies; a pass that
    /// ended meanwhile, or waits to start, is dropped: after this checkpoint it would copy
    /// nothing, and started right after a complete one it could meet the WAL-reset bug.
    func checkpointingAlone<T>(_ checkpoint: () -> T) -> T {
        checkpointLock.withLock { _ in
            let result = checkpoint()
            state.withLock { state in
                state.finished = nil
                if state.running { state.cancelled = true }
            }
            return result
        }
    }

    /// Passes run since start, for tests.
    var passes: Int { state.withLock { $0.passes } }

    /// Flushes of the file after passes since start, for tests.
    var flushes: Int { state.withLock { $0.flushes } }

    /// Ends the thread once its pass (if any) has ended, and closes its connection. Returns
    /// once it has, on every call.
    func stop() {
        let waiting = state.withLock { state in
            state.stopping = true
            return !state.threadEnded
        }
        guard waiting else { return }
        wake.signal()
        ended.wait()
        // For a later call: the thread has ended.
        ended.signal()
    }

    private func run() {
        // Frames copied as of the last flush: a pass that copied none more has nothing to flush.
        var flushed = -1
        while true {
            wake.wait()
            if state.withLock({ $0.stopping }) { break }
            beforePass()
            checkpointLock.withLock { _ in
                let go = state.withLock { state in
                    if !state.cancelled { return true }
                    (state.cancelled, state.running) = (false, false)
                    return false
                }
                guard go else { return }
                var result: SQLiteConnection.CheckpointResult?
                do {
                    result = try connection.checkpoint(.passive)
                } catch {
                    // The journal's connection then copies everything: only the head start is lost.
                    logger.warning("journal checkpoint pass failed", metadata: ["error": "\(error)"])
                }
                // Before the pass is reported: the finish it leads to then has only its own pages
                // to flush. Even a pass that copied every frame it saw was left unflushed when
                // commits came meanwhile. A failure costs only time: the finish flushes the file
                // again, and reports what fails there.
                if let result, result.checkpointed != flushed {
                    do {
                        try connection.syncFile()
                        flushed = result.checkpointed
                        state.withLock { $0.flushes += 1 }
                    } catch {
                        logger.warning("journal file sync after a checkpoint pass failed", metadata: ["error": "\(error)"])
                    }
                }
                state.withLock { state in
                    state.running = false
                    state.finished = result
                    state.passes += 1
                }
            }
        }
        try? connection.close()
        state.withLock { $0.threadEnded = true }
        ended.signal()
    }
}
