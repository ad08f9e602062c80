import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `posix_spawn` with an empty signal mask and default handlers (Foundation's `Process` would
/// pass on a mask that blocks SIGTERM, see LocalBroker's ChildProcess), in its own process group,
/// and with no descriptor of ours but the three given (libmosquitto's sockets are not
/// close-on-exec; a child holding one would keep our connections open).
enum Spawn {
    static func launch(executable: String, arguments: [String], stdin: Int32, stdout: Int32, stderr: Int32) throws -> pid_t {
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
        let closedFromThree = closeFrom(3, actions: &actions)
        if !closedFromThree { markOpenDescriptorsCloseOnExec() }

        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = (argv + [nil]).withUnsafeBufferPointer { argvPointer in
            posix_spawn(&pid, executable, &actions, &attributes, argvPointer.baseAddress!, environ)
        }
        guard rc == 0 else { throw BenchError.failed("cannot launch \(executable): \(String(cString: strerror(rc)))") }
        return pid
    }

    #if canImport(Glibc)
    /// glibc 2.34+ has `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not show.
    private static func closeFrom(_ lowest: Int32, actions: inout posix_spawn_file_actions_t) -> Bool {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return false }
        let addCloseFrom = unsafeBitCast(symbol, to: AddCloseFrom.self)
        return addCloseFrom(&actions, lowest) == 0
    }
    #else
    private static func closeFrom(_ lowest: Int32, actions: inout posix_spawn_file_actions_t?) -> Bool { false }
    #endif

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

    /// A pipe whose ends are both close-on-exec (`dup2` in the child clears it for the end it takes).
    static func makePipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw BenchError.failed("pipe: \(String(cString: strerror(errno)))") }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return (ends[0], ends[1])
    }

    /// Reaps `pid` if it has ended: its raw wait status, or nil while it runs.
    static func reap(_ pid: pid_t) -> Int32? {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { return status }
        if result < 0, errno == ECHILD { return -1 }
        return nil
    }

    /// Exit code, or 128 + signal, from a raw wait status.
    static func exitCode(_ status: Int32) -> Int32 {
        if status < 0 { return -1 }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
