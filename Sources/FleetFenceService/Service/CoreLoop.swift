import FleetFenceJournal
import Logging
import Synchronization

/// Runs the core behind one lock and carries out what it decides. libmosquitto's network thread
/// (messages), the periodic task (silence, batched journal writes) and the SIGHUP reload all go
/// through it, so the engine, the journal and the publish order see one sequence of events: each
/// step's effects are handed to the writer before the lock is let go. The lock is uncontended
/// almost always: messages come from one thread, the others wake a few times a second.
final class CoreLoop: Sendable {
    private let core: Mutex<GeofenceCore>
    let writer: JournalWriter<Effects>
    private let logger: Logger
    /// Told, under the lock, when a step owes the whole fence registry (``Effects/registryOwed``).
    private let registryOwed = Mutex<@Sendable () -> Void>({})

    init(_ core: sending GeofenceCore, writer: JournalWriter<Effects>, logger: Logger) {
        self.core = Mutex(core)
        self.writer = writer
        self.logger = logger
    }

    /// One step: the core decides, its log lines are written, its effects queued for the writer.
    func step(_ decide: (inout GeofenceCore) -> Effects) {
        core.withLock { core in
            carryOut(decide(&core))
        }
    }

    /// One step whose decision also answers the caller (an HTTP write).
    func stepReturning<T: Sendable>(_ decide: (inout GeofenceCore) -> (Effects, T)) -> T {
        core.withLock { core in
            let (effects, answer) = decide(&core)
            carryOut(effects)
            return answer
        }
    }

    /// Reads or changes the core's state without a step (counters, sets of devices due).
    func withCore<T>(_ body: (inout GeofenceCore) throws -> sending T) rethrows -> sending T {
        try core.withLock(body)
    }

    /// What to do when a step owes the whole fence registry; it must not wait for the lock.
    func onRegistryOwed(_ body: @escaping @Sendable () -> Void) {
        registryOwed.withLock { $0 = body }
    }

    /// Under the lock: effects reach the writer in the order the core made them.
    func carryOut(_ effects: Effects) {
        for line in effects.logs { logger.log(level: line.level, "\(line.message)", metadata: line.metadata) }
        if effects.registryOwed { registryOwed.withLock { $0 }() }
        if !effects.isEmpty { writer.submit(effects) }
    }
}
