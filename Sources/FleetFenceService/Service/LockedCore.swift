import Synchronization

/// The core behind one lock. libmosquitto's network thread (messages), the periodic task (silence,
/// batched journal writes) and the SIGHUP reload all go through it, so the engine, the journal and
/// the publish order see one sequence of events. The lock is uncontended almost always: messages
/// come from one thread, the others wake a few times a second.
final class LockedCore: Sendable {
    private let mutex: Mutex<GeofenceCore>

    init(_ core: sending GeofenceCore) {
        mutex = Mutex(core)
    }

    func withLock<T>(_ body: (inout GeofenceCore) throws -> sending T) rethrows -> sending T {
        try mutex.withLock(body)
    }
}
