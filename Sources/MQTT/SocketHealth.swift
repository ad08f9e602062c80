#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Detects a dead socket that libmosquitto still treats as "connecting".
///
/// libmosquitto 2.0.11, TLS: when `SSL_connect` fails with `SSL_ERROR_SYSCALL` (TCP
/// connection refused, or the peer closed it during the handshake), it keeps the socket
/// and returns success, and the network loop then spins on it at full CPU until the
/// keep-alive gives up (measured: ~150,000 iterations per second). Checked only until
/// the CONNACK arrives, so it costs nothing once connected.
enum SocketHealth {
    enum Verdict {
        case alive
        /// The socket failed; `errno` is its pending error, 0 if none was left.
        case dead(errno: Int32)
    }

    static func check(_ socket: Int32) -> Verdict {
        guard socket >= 0 else { return .alive }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN | POLLOUT | hangUpEvents), revents: 0)
        guard poll(&descriptor, 1, 0) == 1 else { return .alive }
        let events = Int32(descriptor.revents)
        if events & Int32(POLLERR | POLLHUP) != 0 {
            return .dead(errno: pendingError(socket))
        }
        // Half-closed by the peer with nothing left to read: no CONNACK can come.
        if events & hangUpEvents != 0 {
            var available: Int32 = 0
            if ioctl(socket, UInt(FIONREAD), &available) == 0, available == 0 {
                return .dead(errno: pendingError(socket))
            }
        }
        return .alive
    }

    #if os(Linux)
    /// POLLRDHUP; Glibc hides the constant behind _GNU_SOURCE, its value is fixed ABI.
    private static let hangUpEvents: Int32 = 0x2000
    #else
    private static let hangUpEvents: Int32 = 0
    #endif

    private static func pendingError(_ socket: Int32) -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length) == 0 ? error : 0
    }
}
