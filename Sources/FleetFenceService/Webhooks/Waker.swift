import Synchronization

/// Wakes a webhook's worker: new rows committed, a delivery done, a redelivery asked for. A
/// signal while the worker is busy is kept, so that it looks once more before it sleeps.
final class Waker: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
        /// Tells a timeout apart from the wait it was set for.
        var generation = 0
        /// The timeout of the current wait, cancelled when a signal comes first.
        var timer: Task<Void, Never>?
    }

    private let state = Mutex(State())

    func signal() {
        let (waiter, timer) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
            guard let waiter = state.waiter else {
                state.pending = true
                return (nil, nil)
            }
            state.waiter = nil
            defer { state.timer = nil }
            return (waiter, state.timer)
        }
        timer?.cancel()
        waiter?.resume()
    }

    /// Returns on a signal (or one kept from before), after `timeout` seconds, or on cancellation.
    func wait(timeout: Double) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let generation: Int? = state.withLock { state in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return nil
                    }
                    state.generation += 1
                    state.waiter = continuation
                    return state.generation
                }
                guard let generation else {
                    continuation.resume()
                    return
                }
                let timer = Task { [self] in
                    guard (try? await Task.sleep(for: .milliseconds(Int64(max(0, min(timeout, 3_600)) * 1_000)))) != nil else { return }
                    expire(generation)
                }
                // Kept only if the wait it belongs to still waits.
                let stale = state.withLock { state -> Bool in
                    guard state.generation == generation, state.waiter != nil else { return true }
                    state.timer = timer
                    return false
                }
                if stale { timer.cancel() }
            }
        } onCancel: {
            signal()
        }
    }

    private func expire(_ generation: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.generation == generation, let waiter = state.waiter else { return nil }
            state.waiter = nil
            state.timer = nil
            return waiter
        }
        waiter?.resume()
    }
}
