import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, with an empty signal mask and default
/// signal handlers.
///
/// Foundation's `Process` passes on the signal mask of the spawning thread. Called from
/// a Swift concurrency or Dispatch thread, that mask blocks SIGTERM and SIGINT, and
/// mosquitto (which restores its inherited mask around its event wait) then ignores
/// SIGTERM for good. It is also started in its own process group, so a Ctrl-C meant for
/// `fleetfence demo` does not stop the broker before the service has disconnected.
final class ChildProcess: Sendable {
    let pid: pid_t
    private let exitStatus = Mutex<Int32?>(nil)

    /// - Parameter fileDescriptors: the child's stdin, stdout and stderr.
    init(executable: String, arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32) throws(LocalBrokerError) {
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
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGQUIT, SIGUSR1, SIGUSR2] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)

        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = (argv + [nil]).withUnsafeBufferPointer { argvPointer in
            posix_spawn(&pid, executable, &actions, &attributes, argvPointer.baseAddress!, environ)
        }
        guard rc == 0 else {
            throw .launchFailed(executable: executable, reason: String(cString: strerror(rc)))
        }
        self.pid = pid
    }

    /// Reaps the child if it has ended; `true` while it runs.
    var isRunning: Bool {
        exitStatus.withLock { exitStatus in
            guard exitStatus == nil else { return false }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                exitStatus = status
                return false
            }
            // ECHILD: reaped elsewhere; nothing left to wait for.
            if result < 0, errno == ECHILD {
                exitStatus = -1
                return false
            }
            return true
        }
    }

    /// The exit code, or 128 + signal for a child ended by a signal; `nil` while running.
    var terminationStatus: Int32? {
        guard !isRunning, let status = exitStatus.withLock({ $0 }) else { return nil }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Sends `signal`, waits up to `grace`, then SIGKILL; returns once the child is reaped.
    func end(with signal: Int32, grace: Duration = .seconds(5)) {
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
            usleep(2_000)
        }
        return true
    }
}
