import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A raw HTTP request to the service on 127.0.0.1: fleetbench's HTTP clients read their answers
/// at a pace of their own, which a client library would not let them choose.
enum LoopbackRequest {
    /// A TCP socket connected to 127.0.0.1:`port` with `request` sent, `configure`d before it
    /// connects; nil when the service does not answer.
    static func open(port: Int, request: String, configure: (Int32) -> Void = { _ in }) -> Int32? {
        #if canImport(Glibc)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return nil }
        configure(fd)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let bytes = Array(request.utf8)
        guard connected == 0, send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            close(fd)
            return nil
        }
        return fd
    }
}
