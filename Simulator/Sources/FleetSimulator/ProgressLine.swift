import Foundation
import Synchronization

/// One status line on standard error, redrawn in place; silent when standard error is not a
/// terminal, so logs and pipes stay clean. Lines printed through `printAbove` clear it first.
final class ProgressLine: Sendable {
    private let enabled: Bool
    private let shown = Mutex<String?>(nil)

    init(enabled: Bool) {
        self.enabled = enabled && isatty(STDERR_FILENO) != 0
    }

    func update(_ text: String) {
        guard enabled else { return }
        shown.withLock { shown in
            write("\r\u{1B}[K" + text)
            shown = text
        }
    }

    /// Runs `print` (which writes whole lines) with the status line out of the way.
    func printAbove(_ print: () -> Void) {
        shown.withLock { shown in
            if enabled, shown != nil { write("\r\u{1B}[K") }
            print()
            if enabled, let shown { write(shown) }
        }
    }

    func clear() {
        guard enabled else { return }
        shown.withLock { shown in
            if shown != nil { write("\r\u{1B}[K") }
            shown = nil
        }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
