import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback TCP port that refuses connections and stays this test's: bound, never listening,
/// so the kernel answers every connect with a reset and gives the port to nobody else.
///
/// A receiver started and stopped to find a dead port leaves it free for any other test of a
/// parallel run to take: a webhook test once delivered to another test's server that way.
public final class RefusingPort: Sendable {
    public let port: Int
    private let descriptor: Mutex<Int32?>

    public init() throws {
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
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard ok else {
            close(fd)
            throw TestSupportError("bind: \(String(cString: strerror(errno)))")
        }
        descriptor = Mutex(fd)
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:<port>/hook`.
    public var url: String { "http://127.0.0.1:\(port)/hook" }

    /// Lets the port go, for a server of the test's to listen on it next.
    public func release() {
        descriptor.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }

    deinit {
        release()
    }
}
