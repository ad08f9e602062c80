import Dispatch
import Foundation
import Synchronization

/// Copies the journal's WAL into its main file on a thread and connection of its own, so that
/// the copy and its two fsyncs delay no commit: in the soak (docs/performance.md "Soak") the
/// writer checkpointed 2.2 times a second itself, 42 ms at the median and up to 275 ms, and
/// every alert that came meanwhile waited.
///
/// A pass on another connection cannot start the WAL over: SQLite rewinds it only when a commit
/// begins with every frame copied, and under steady writes some always land during the pass
/// (left alone, the WAL grew to 332 MB in 18 s of commits 1 ms apart). So the journal's own
/// connection finishes every other pass: it copies the frames committed meanwhile, a few
/// hundred, and its next commit rewinds (`Journal.checkpointIfDue()`).
final class Checkpointer: Sendable {
    /// A pass that has ended, for the journal's connection to finish.
    struct Pass: Sendable, Equatable {
        var result: SQLiteConnection.CheckpointResult?
    }

    private struct State {
        var running = false
        var finished: Pass?
        var stopping = false
        var passes = 0
    }

    private let connection: SQLiteConnection
    private let state = Mutex(State())
    /// Held by every checkpoint of the journal, this thread's and the journal connection's:
    /// SQLite runs one at a time and a second one would return at once, having done nothing.
    let checkpointLock = Mutex(())
    private let wake = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    /// A connection of its own to `path`, a journal in WAL mode that another connection writes.
    init(path: String) throws {
        connection = try SQLiteConnection.open(path: path)
        do {
            // As the writer's: the checkpoint's fsyncs keep the file sound after a power loss.
            try connection.run("PRAGMA synchronous = NORMAL")
        } catch {
            try? connection.close()
            throw error
        }
        Thread.detachNewThread { [self] in
            // Linux keeps 15 bytes of a thread's name and refuses a longer one.
            Thread.current.name = "wal-checkpoint"
            run()
        }
    }

    /// Asks for a pass; nothing when one runs or waits to be finished.
    func request() {
        let start = state.withLock { state in
            guard !state.running, state.finished == nil, !state.stopping else { return false }
            state.running = true
            return true
        }
        if start { wake.signal() }
    }

    /// The pass that ended since the last call, taken.
    func takeFinishedPass() -> Pass? {
        state.withLock { state in
            defer { state.finished = nil }
            return state.finished
        }
    }

    /// Passes run since start, for tests.
    var passes: Int { state.withLock { $0.passes } }

    /// Ends the thread once its pass (if any) has ended, and closes its connection.
    func stop() {
        let running = state.withLock { state in
            if state.stopping { return false }
            state.stopping = true
            return true
        }
        guard running else { return }
        wake.signal()
        ended.wait()
    }

    private func run() {
        while true {
            wake.wait()
            if state.withLock({ $0.stopping }) { break }
            // A failure is left to the journal's connection, whose own checkpoint then copies
            // everything: nothing is lost, only this pass's head start.
            let result = checkpointLock.withLock { _ in try? connection.checkpoint(.passive) }
            state.withLock { state in
                state.running = false
                state.finished = Pass(result: result)
                state.passes += 1
            }
        }
        try? connection.close()
        ended.signal()
    }
}
