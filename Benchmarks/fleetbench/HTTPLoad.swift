import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `--http-load`: the readers an operator puts beside the service while positions flow (docs/http.md
/// "The HTTP interface"): a map following `/api/stream`, a Prometheus scraper on `/metrics` every
/// second, and a reader polling `/api/devices` every 100 ms. Each on a thread of its own, plain
/// sockets, counting what it read: the benchmark shows what they cost the position path.
final class HTTPLoad: Sendable {
    private let port: Int
    private let stopped = Atomic(false)
    let streamBytes = Atomic(0)
    let requests = Atomic(0)
    let failures = Atomic(0)

    init(port: Int) {
        self.port = port
        Thread.detachNewThread { [self] in stream() }
        Thread.detachNewThread { [self] in poll("/metrics", every: 1.0) }
        Thread.detachNewThread { [self] in poll("/api/devices?limit=1000", every: 0.1) }
    }

    func stop() {
        stopped.store(true, ordering: .releasing)
    }

    private var running: Bool { !stopped.load(ordering: .acquiring) }

    /// Reads the stream to the end of the run, reconnecting while the service starts.
    private func stream() {
        while running {
            guard let fd = LoopbackRequest.open(port: port, request: "GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") else {
                usleep(50_000)
                continue
            }
            var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while running {
                let count = recv(fd, &buffer, buffer.count, 0)
                if count > 0 { streamBytes.add(count, ordering: .relaxed) }
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { break }
            }
            close(fd)
        }
    }

    private func poll(_ path: String, every seconds: Double) {
        while running {
            let started = Date()
            if let fd = LoopbackRequest.open(port: port, request: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n") {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while recv(fd, &buffer, buffer.count, 0) > 0 {}
                close(fd)
                requests.add(1, ordering: .relaxed)
            } else {
                failures.add(1, ordering: .relaxed)
            }
            let left = seconds - Date().timeIntervalSince(started)
            if left > 0 { usleep(UInt32(left * 1_000_000)) }
        }
    }
}
