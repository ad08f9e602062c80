import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ends a child's process group if this process dies without ending the child itself: for the
/// ways out that run no code of ours (a crash, SIGKILL, a killed test run).
///
/// It is `sh` reading a pipe whose write end only this process holds (close-on-exec, so no other
/// child inherits it and keeps the pipe open). `dismiss()` writes "done" and the shell exits
/// quietly; if we die first, the kernel closes the pipe, `read` sees end-of-file and the shell
/// sends SIGTERM to the group (a clean stop: mosquitto saves its persistence, the service its
/// journal), then SIGKILL to whatever is left after 10 s. The group, not the pid, so that a
/// program a wrapper (`env valgrind ...`) runs goes too.
final class Watchdog: Sendable {
    /// How the shell shows in `ps`: `/bin/sh -c <script> watchdog <pgid>` ($0 and $1).
    static let name = "watchdog"

    private static let script = """
        read -r line; [ "$line" = done ] && exit 0
        kill -TERM -$1 2>/dev/null; i=0
        while kill -0 -$1 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
        kill -KILL -$1 2>/dev/null
        """

    private let shell: ChildProcess
    /// The pipe's write end; -1 once dismissed.
    private let input: Mutex<Int32>

    /// - Parameter processGroup: the child's pid; `ChildProcess` makes it the leader of its own group.
    init(guarding processGroup: pid_t) throws(LocalBrokerError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw .launchFailed(executable: "/bin/sh", reason: "a watchdog's pipe: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer {
            close(null)
            close(ends[0])
        }
        do {
            shell = try ChildProcess(
                executable: "/bin/sh", arguments: ["-c", Self.script, Self.name, String(processGroup)],
                stdin: ends[0], stdout: null, stderr: null)
        } catch {
            close(ends[1])
            throw error
        }
        input = Mutex(ends[1])
    }

    /// Lets the shell go without touching the child, and waits for it. Idempotent.
    func dismiss() {
        let dismissed = input.withLock { fd -> Bool in
            guard fd >= 0 else { return false }
            _ = "done\n".utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, 5) }
            close(fd)
            fd = -1
            return true
        }
        guard dismissed else { return }
        // It exits as soon as it has read the line; the bound is for a shell that did not.
        if !shell.waitForExit(within: .seconds(1)) { shell.end(with: SIGKILL, grace: .zero) }
    }

    deinit {
        dismiss()
    }
}
