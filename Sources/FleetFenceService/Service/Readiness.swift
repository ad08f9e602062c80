import Synchronization

/// The service's way through start-up, for whoever waits for it (a test, the demo): told once it
/// is ready and once it has ended, so that nobody polls `isReady`; and the step start-up is at,
/// which `/readyz` says.
final class Readiness: Sendable {
    enum Phase: Sendable { case starting, ready, stopping, ended }

    private let state = Mutex<(phase: Phase, step: String, waiters: [Int: CheckedContinuation<Phase, Never>], next: Int)>(
        (.starting, "opening the journal", [:], 0))

    var phase: Phase { state.withLock { $0.phase } }

    /// What start-up is doing (the journal, the broker): a service waiting for its broker said
    /// only that it was starting.
    var step: String { state.withLock { $0.step } }

    func starting(_ step: String) {
        state.withLock { $0.step = step }
    }

    func moved(to phase: Phase) {
        let waiters = state.withLock { state in
            // Ended is final: a service that ended is not ready again.
            guard state.phase != .ended else { return [CheckedContinuation<Phase, Never>]() }
            state.phase = phase
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: phase) }
    }

    /// Returns once the service is ready or has ended, whichever comes first; on cancellation,
    /// the phase it is in.
    func untilSettled() async -> Phase {
        let id = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let phase = state.withLock { state -> Phase? in
                    if state.phase != .starting || Task.isCancelled { return state.phase }
                    state.waiters[id] = continuation
                    return nil
                }
                if let phase { continuation.resume(returning: phase) }
            }
        } onCancel: {
            let (waiter, phase) = state.withLock { ($0.waiters.removeValue(forKey: id), $0.phase) }
            waiter?.resume(returning: phase)
        }
    }
}
