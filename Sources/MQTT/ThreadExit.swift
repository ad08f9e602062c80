import Dispatch
import Synchronization

/// Signals the end of a network thread; both async (`disconnect()`) and blocking
/// (`deinit`, which cannot await) waiters can join it.
final class ThreadExit: Sendable {
    private let state = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    private let semaphore = DispatchSemaphore(value: 0)

    func signal() {
        let waiters = state.withLock { state in
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
        semaphore.signal()
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    func waitBlocking() {
        if state.withLock({ $0.done }) { return }
        semaphore.wait()
        semaphore.signal() // pass it on to any other blocking waiter
    }
}
