import FleetFenceService
import Synchronization

/// A wall clock that moves only when the test moves it: the service's silence, forgetting and
/// periodic writes happen on ``advance(by:)``, at once, instead of after real seconds of sleep.
public final class ManualClock: ServiceClock {
    private struct Sleeper {
        var deadline: Double
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Double
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
        /// Waiters for a number of sleepers (the service's periodic task asleep again).
        var asleepWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    public init(now: Double) {
        state = Mutex(State(now: now))
    }

    public var now: Double { state.withLock { $0.now } }

    public func sleep(for duration: Duration) async throws {
        let (whole, fraction) = duration.components
        let seconds = Double(whole) + Double(fraction) * 1e-18
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Cancelled before it slept: the handler found nothing to cancel.
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    state.sleepers[id] = Sleeper(deadline: state.now + seconds, continuation: continuation)
                    return Self.takeAsleepWaiters(&state)
                }
                for waiter in waiters { waiter.resume() }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock and wakes whoever's sleep is over; returns once as many are asleep again
    /// as were before (the service's periodic task has done its turn), or after ten seconds of
    /// real time if one does not go back to sleep (it ended). Ten, not one: an advance made
    /// while the task is still awake finds nothing due and returns at once, and that tick is lost;
    /// a turn on a loaded machine (every suite at once) must not be cut short.
    public func advance(by seconds: Double) async {
        let (due, asleep) = state.withLock { state in
            state.now += seconds
            let asleep = state.sleepers.count
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return (due.values.map(\.continuation), asleep)
        }
        for continuation in due { continuation.resume() }
        guard !due.isEmpty else { return }
        await untilSleeping(asleep)
    }

    /// Moves the clock in steps of `step` seconds, letting the service take its turn at each.
    public func advance(by seconds: Double, step: Double) async {
        var left = seconds
        while left > 0 {
            await advance(by: min(step, left))
            left -= step
        }
    }

    /// Returns once `count` sleep on this clock, or after ten seconds: a service started on it
    /// is ready before its periodic task first sleeps, and a test that moves the clock before
    /// that moves it past ticks that never come.
    public func untilSleeping(_ count: Int = 1) async {
        let timeout = Task {
            // Cancelled, it must not wake anyone: the waiter now registered is the next
            // advance's, whose sleeper has not gone back to sleep yet.
            guard (try? await Task.sleep(for: .seconds(10))) != nil else { return }
            let waiters = state.withLock { state in
                defer { state.asleepWaiters = [] }
                return state.asleepWaiters.map(\.continuation)
            }
            for waiter in waiters { waiter.resume() }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.sleepers.count >= count { return true }
                state.asleepWaiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
        timeout.cancel()
    }

    private static func takeAsleepWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let ready = state.asleepWaiters.filter { state.sleepers.count >= $0.count }
        state.asleepWaiters.removeAll { state.sleepers.count >= $0.count }
        return ready.map(\.continuation)
    }
}
