import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Between a `ChildProcess` and the task that runs its child with swift-subprocess: the pid (or why
/// there is none) handed out once, and the hold that keeps Subprocess's closure, and so the
/// unreaped child, until the owner lets go.
final class ChildLaunch: Sendable {
    private struct State {
        var outcome: Result<pid_t, LocalBrokerError>?
        var released = false
        var holder: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let decided = DispatchSemaphore(value: 0)

    func started(_ pid: pid_t) {
        decide(.success(pid))
    }

    func failed(_ error: LocalBrokerError) {
        decide(.failure(error))
    }

    private func decide(_ outcome: Result<pid_t, LocalBrokerError>) {
        let first = state.withLock { state in
            guard state.outcome == nil else { return false }
            state.outcome = outcome
            return true
        }
        if first { decided.signal() }
    }

    /// Blocks until the child runs or could not be started.
    func outcome() -> Result<pid_t, LocalBrokerError> {
        decided.wait()
        decided.signal()
        return state.withLock { $0.outcome! }
    }

    /// Returns once `release()` was called.
    func hold() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                guard !state.released else { return true }
                state.holder = continuation
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets `hold()` return. Idempotent.
    func release() {
        let holder = state.withLock { state in
            state.released = true
            defer { state.holder = nil }
            return state.holder
        }
        holder?.resume()
    }
}
