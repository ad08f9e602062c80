import Configuration
import Synchronization

/// Keeps the last access event of a ConfigReader: it says which provider answered (or failed), which is
/// how errors name the layer a bad value came from. ConfigReader's non-throwing getters would otherwise
/// swallow a provider's conversion error and quietly fall back.
final class LookupRecorder: AccessReporter {
    private let last = Mutex<AccessEvent?>(nil)

    func report(_ event: AccessEvent) {
        last.withLock { $0 = event }
    }

    func take() -> AccessEvent? {
        last.withLock { event in
            defer { event = nil }
            return event
        }
    }
}
