import FleetFenceTesting
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP forwarder on loopback whose listen queue is full for `delay`: a client's first SYN
/// is dropped and its connect completes only after a retransmission (about a second later),
/// as over a real network. Then every connection is piped to `upstreamPort`.
final class SlowAcceptProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let stopped = Atomic<Bool>(false)

    init(upstreamPort: Int, delay: Duration) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 0) == 0 else {
            close(fd)
            throw TestSupportError("proxy: cannot listen: \(errno)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        // One connection nobody accepts fills the queue of a backlog of 0.
        let filler = try Self.connect(port: port)
        Thread.detachNewThread { [self] in
            Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) * 1e-18)
            close(accept(listener, nil, nil))
            close(filler)
            serve(upstreamPort: upstreamPort)
        }
    }

    private func serve(upstreamPort: Int) {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard let upstream = try? Self.connect(port: upstreamPort) else {
                close(client)
                continue
            }
            Self.pipe(from: client, to: upstream)
            Self.pipe(from: upstream, to: client)
        }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private static func pipe(from source: Int32, to destination: Int32) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(source, &buffer, buffer.count)
                if count <= 0 || write(destination, buffer, count) != count { break }
            }
            shutdown(destination, Int32(SHUT_WR))
        }
    }

    private static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            close(fd)
            throw TestSupportError("proxy: cannot connect to \(port): \(errno)")
        }
        return fd
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
