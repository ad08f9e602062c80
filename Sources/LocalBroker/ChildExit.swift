#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a child ended, read without reaping it (`waitid` with `WNOWAIT`): swift-subprocess reaps it
/// once the closure it runs the child with returns, and `ChildProcess` keeps that closure open
/// until it has seen the end here, so that the pid stays this child's while signals may go to it.
enum ChildExit {
    /// The exit code, or 128 + signal for a child ended by a signal; `nil` while it runs, -1 if
    /// it cannot be told (reaped elsewhere).
    static func peek(_ pid: pid_t) -> Int32? {
        var info = siginfo_t()
        while true {
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 { break }
            if errno == EINTR { continue }
            return -1
        }
        #if canImport(Glibc)
        let (child, code, status) = (info._sifields._sigchld.si_pid, info.si_code, info._sifields._sigchld.si_status)
        #else
        let (child, code, status) = (info.si_pid, info.si_code, info.si_status)
        #endif
        guard child == pid else { return nil }
        return code == CLD_EXITED ? status : 128 + status
    }
}
