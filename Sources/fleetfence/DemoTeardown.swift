import Synchronization

/// What the demo has started, undone in reverse order exactly once: at the normal end, on an
/// error, or from a signal handler when the user insists on quitting.
final class DemoTeardown: Sendable {
    private let steps = Mutex<[@Sendable () -> Void]>([])

    /// Registers `step`, run before every step registered earlier.
    func add(_ step: @escaping @Sendable () -> Void) {
        steps.withLock { $0.append(step) }
    }

    /// Runs the steps, newest first. The lock is held throughout, so a second caller (a signal
    /// handler racing the normal end) returns only once everything is stopped.
    func run() {
        steps.withLock { steps in
            while let step = steps.popLast() { step() }
        }
    }
}
