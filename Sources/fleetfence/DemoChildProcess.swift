import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child of `fleetfence demo`, started with `posix_spawn` in its own process group, with an
/// empty signal mask and default signal handlers.
///
/// Why not Foundation's `Process`: it passes on the spawning thread's signal mask and the demo's
/// ignored SIGINT/SIGTERM (the demo handles them through Dispatch), so the child could not be
/// stopped by a signal. Its own process group keeps a terminal's Ctrl-C away from it: the demo
/// stops its children itself, in order (simulator, service, broker).
final class DemoChildProcess: Sendable {
    let pid: pid_t
    private let exitStatus = Mutex<Int32?>(nil)

    /// `stdin`, `stdout` and `stderr` become the child's 0, 1 and 2.
    init(
        executable: String, arguments: [String], environment: [String: String], stdin: Int32, stdout: Int32,
        stderr: Int32
    ) throws {
        #if canImport(Darwin)
        var attributes: posix_spawnattr_t?
        var actions: posix_spawn_file_actions_t?
        #else
        var attributes = posix_spawnattr_t()
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawnattr_init(&attributes)
        posix_spawn_file_actions_init(&actions)
        defer {
            posix_spawnattr_destroy(&attributes)
            posix_spawn_file_actions_destroy(&actions)
        }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = (argv + [nil]).withUnsafeBufferPointer { argvPointer in
            (envp + [nil]).withUnsafeBufferPointer { envPointer in
                posix_spawn(&pid, executable, &actions, &attributes, argvPointer.baseAddress!, envPointer.baseAddress!)
            }
        }
        guard rc == 0 else { throw DemoError("cannot start \(executable): \(String(cString: strerror(rc)))") }
        self.pid = pid
    }

    /// Reaps the child once it has ended; `true` while it runs.
    var isRunning: Bool {
        exitStatus.withLock { exitStatus in
            guard exitStatus == nil else { return false }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                exitStatus = status
                return false
            }
            if result < 0, errno == ECHILD {
                exitStatus = -1
                return false
            }
            return true
        }
    }

    /// The exit code, or 128 + signal when a signal ended it; `nil` while it runs.
    var terminationStatus: Int32? {
        guard !isRunning, let status = exitStatus.withLock({ $0 }) else { return nil }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Sends `signal`, waits up to `grace`, then SIGKILL; returns once the child is reaped.
    func end(with signal: Int32, grace: Duration) {
        send(signal)
        if !waitForExit(within: grace) {
            send(SIGKILL)
            _ = waitForExit(within: .seconds(5))
        }
    }

    func waitForExit(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            if ContinuousClock.now >= deadline { return false }
            usleep(5_000)
        }
        return true
    }
}
