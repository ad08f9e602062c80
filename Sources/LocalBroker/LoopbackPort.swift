import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// TCP on 127.0.0.1: finding a free port and probing whether one accepts connections.
enum LoopbackPort {
    /// Asks the kernel for a free port (bind to port 0), then releases it for mosquitto.
    /// Another process could take it in between; `LocalMosquitto` retries if so.
    static func free() throws(LocalBrokerError) -> Int {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { throw .noFreePort(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw .noFreePort(reason: String(cString: strerror(errno))) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw .noFreePort(reason: String(cString: strerror(errno))) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// `true` if something accepts a TCP connection on 127.0.0.1:`port` right now.
    static func accepts(_ port: Int) -> Bool {
        guard let fd = connected(to: port) else { return false }
        close(fd)
        return true
    }

    /// A socket connected to 127.0.0.1:`port` (close-on-exec), or `nil`; the caller closes it.
    static func connected(to port: Int) -> Int32? {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    #if canImport(Glibc)
    private static let streamSocket = Int32(SOCK_STREAM.rawValue)
    #else
    private static let streamSocket = SOCK_STREAM
    #endif

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
