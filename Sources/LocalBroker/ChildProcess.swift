import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`: empty signal mask, default signal handlers,
/// its own process group, and no descriptor of ours but the three it is given.
///
/// Foundation's `Process` passes on the spawning thread's signal mask, which on a Swift
/// concurrency or Dispatch thread blocks SIGTERM and SIGINT (mosquitto then ignores SIGTERM
/// for good), and a caller's ignored SIGINT/SIGTERM. Its own process group keeps a terminal's
/// Ctrl-C away from it, so the owner can stop its children in order. Other descriptors are
/// closed because libmosquitto's sockets are not close-on-exec: a child holding one would
/// keep our connections open.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    private let exitStatus = Mutex<Int32?>(nil)

    /// `stdin`, `stdout` and `stderr` become the child's 0, 1 and 2.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; `nil` passes on ours.
    ///   - workingDirectory: where the child starts; `nil`: ours.
    public init(
        executable: String, arguments: [String], environment: [String: String]? = nil, workingDirectory: String? = nil,
        stdin: Int32, stdout: Int32, stderr: Int32
    ) throws(LocalBrokerError) {
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
        var flags = Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP)

        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        #if canImport(Darwin)
        flags |= Int16(POSIX_SPAWN_CLOEXEC_DEFAULT)
        #else
        if !Self.closeFrom(3, actions: &actions) { Self.markOpenDescriptorsCloseOnExec() }
        #endif
        posix_spawnattr_setflags(&attributes, flags)
        if let workingDirectory, !Self.changeDirectory(to: workingDirectory, actions: &actions) {
            throw .launchFailed(executable: executable, reason: "cannot start it in \(workingDirectory): no posix_spawn chdir here")
        }

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } }
        defer { (argv + (envp ?? [])).forEach { free($0) } }
        var pid: pid_t = 0
        let rc = (argv + [nil]).withUnsafeBufferPointer { argvPointer in
            guard let envp else {
                return posix_spawn(&pid, executable, &actions, &attributes, argvPointer.baseAddress!, environ)
            }
            return (envp + [nil]).withUnsafeBufferPointer { envPointer in
                posix_spawn(&pid, executable, &actions, &attributes, argvPointer.baseAddress!, envPointer.baseAddress!)
            }
        }
        guard rc == 0 else {
            throw .launchFailed(executable: executable, reason: String(cString: strerror(rc)))
        }
        self.pid = pid
    }

    #if canImport(Darwin)
    private static func changeDirectory(to path: String, actions: inout posix_spawn_file_actions_t?) -> Bool {
        posix_spawn_file_actions_addchdir_np(&actions, path) == 0
    }
    #else
    /// glibc 2.29+ has `posix_spawn_file_actions_addchdir_np`, which Swift's Glibc module does not show.
    private static func changeDirectory(to path: String, actions: inout posix_spawn_file_actions_t) -> Bool {
        typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else { return false }
        let addChdir = unsafeBitCast(symbol, to: AddChdir.self)
        return addChdir(&actions, path) == 0
    }

    /// glibc 2.34+ has `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not show.
    private static func closeFrom(_ lowest: Int32, actions: inout posix_spawn_file_actions_t) -> Bool {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return false }
        let addCloseFrom = unsafeBitCast(symbol, to: AddCloseFrom.self)
        return addCloseFrom(&actions, lowest) == 0
    }

    /// Fallback: every descriptor above 2 that is open now gets FD_CLOEXEC.
    private static func markOpenDescriptorsCloseOnExec() {
        let limit = min(Int32(getdtablesize()), 65_536)
        var descriptor: Int32 = 3
        while descriptor < limit {
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
            descriptor += 1
        }
    }
    #endif

    /// Reaps the child if it has ended; `true` while it runs.
    public var isRunning: Bool {
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

    /// The exit code, or 128 + signal for a child ended by a signal (-1 if reaped elsewhere);
    /// `nil` while running.
    public var terminationStatus: Int32? {
        guard !isRunning, let status = exitStatus.withLock({ $0 }) else { return nil }
        if status < 0 { return -1 }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }

    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Sends `signal`, waits up to `grace`, then SIGKILL; returns once the child is reaped.
    public func end(with signal: Int32, grace: Duration = .seconds(5)) {
        send(signal)
        if !waitForExit(within: grace) {
            send(SIGKILL)
            _ = waitForExit(within: .seconds(5))
        }
    }

    /// `true` once the child has ended and is reaped, `false` if it still runs after `timeout`.
    public func waitForExit(within timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning {
            if ContinuousClock.now >= deadline { return false }
            usleep(2_000)
        }
        return true
    }
}
