import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP socket bound to a free port of 127.0.0.1: the ground of ``SilentListener`` (listening,
/// never answering) and ``RefusingPort`` (bound, never listening).
enum LoopbackSocket {
    static func bound(listening: Bool) throws -> (descriptor: Int32, port: Int) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestSupportError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && (!listening || listen(fd, 16) == 0) && getsockname(fd, address, &length) == 0
            }
        }
        guard ok else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw TestSupportError("bind\(listening ? "/listen" : ""): \(reason)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
