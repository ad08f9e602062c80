import Synchronization

/// The outcome of one `connect()`: CONNACK accepted, refused, or a failure before it.
/// Whoever resolves it first wins (network thread, timeout, cancellation); later
/// resolutions are ignored, so the awaiting task is resumed exactly once.
final class ConnectAttempt: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Void, any Error>?)
        case finished(Result<Void, MQTTError>)
    }

    private let state = Mutex<State>(.waiting(nil))

    /// `true` once a CONNACK accepted the connection.
    var succeeded: Bool {
        state.withLock { state in
            if case .finished(.success) = state { true } else { false }
        }
    }

    func resolve(_ result: Result<Void, MQTTError>) {
        let waiter: CheckedContinuation<Void, any Error>? = state.withLock { state in
            guard case let .waiting(waiter) = state else { return nil }
            state = .finished(result)
            return waiter
        }
        waiter?.resume(with: result.mapError { $0 as any Error })
    }

    func wait() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let finished: Result<Void, MQTTError>? = state.withLock { state in
                switch state {
                case .waiting:
                    state = .waiting(continuation)
                    return nil
                case let .finished(result):
                    return result
                }
            }
            if let finished {
                continuation.resume(with: finished.mapError { $0 as any Error })
            }
        }
    }
}
