import Dispatch
import Foundation
import Logging
import Synchronization

/// Copies the journal's WAL into its main file, on a thread and connection of its own.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold, on the
/// writer's thread, and with `synchronous=NORMAL` it is where the fsyncs happen (the WAL,
/// then the main file). An alert waits for its commit before it is published, so every
/// alert behind that commit waited for the disk. Here the writer only appends to the WAL,
/// and a PASSIVE checkpoint (which never blocks the writer) runs every `interval`.
final class JournalCheckpointer: Sendable {
    private let connection: SQLiteConnection
    private let interval: Duration
    private let logger: Logger
    private let path: String
    private let stopping = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(path: String, interval: Duration = .seconds(1), logger: Logger) throws {
        connection = try SQLiteConnection.open(path: path)
        self.interval = interval
        self.logger = logger
        self.path = path
        Thread.detachNewThread { [self] in run() }
    }

    /// Ends the thread after its current checkpoint, and closes its connection.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
        finished.wait()
    }

    private func run() {
        defer {
            try? connection.close()
            finished.signal()
        }
        let (seconds, attoseconds) = interval.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        while !stopping.load(ordering: .acquiring) {
            _ = wake.wait(timeout: .now() + .nanoseconds(nanoseconds))
            if stopping.load(ordering: .acquiring) { return }
            do {
                try connection.run("PRAGMA wal_checkpoint(PASSIVE)")
            } catch {
                // Not a loss: the WAL keeps the commits and grows until a checkpoint succeeds.
                logger.warning("journal checkpoint failed", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
    }
}
