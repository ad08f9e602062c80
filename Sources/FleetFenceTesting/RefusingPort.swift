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
        let (fd, port) = try LoopbackSocket.bound(listening: false)
        descriptor = Mutex(fd)
        self.port = port
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
