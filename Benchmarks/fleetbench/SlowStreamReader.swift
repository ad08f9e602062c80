import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One `/api/stream` client that reads far slower than the service writes: `chunk` bytes a second
/// through a small receive buffer. The service must drop it (its feed keeps a bounded queue per
/// reader) rather than wait or buffer for it; each time it does, the reader connects again, so the
/// pressure stays. A dropped reader would see the end of its stream only after reading what the
/// kernel still holds for it (megabytes, at this pace an hour), so it asks `/metrics` instead: once
/// `fleetfence_http_streams` says no stream is open, the service has let it go.
final class SlowStreamReader: Sendable {
    /// Connections made, and how many the service ended (end of file or a reset).
    let connections = Atomic<Int>(0)
    let disconnects = Atomic<Int>(0)
    let bytesRead = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let ended = Atomic<Bool>(false)

    init(port: Int, chunk: Int = 512) {
        let thread = Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                if let socket = Self.open(port: port) {
                    connections.add(1, ordering: .relaxed)
                    if read(socket, port: port, chunk: chunk) { disconnects.add(1, ordering: .relaxed) }
                    close(socket)
                }
                Monotonic.sleep(seconds: 1)
            }
            ended.store(true, ordering: .releasing)
        }
        thread.name = "soak stream reader"
        thread.start()
    }

    /// Reads `chunk` bytes a second until the service ends the stream (`true`) or we stop (`false`).
    private func read(_ socket: Int32, port: Int, chunk: Int) -> Bool {
        var buffer = [UInt8](repeating: 0, count: chunk)
        var reads = 0
        while !stopping.load(ordering: .relaxed) {
            reads += 1
            if reads % 10 == 0, Self.openStreams(port: port) == 0 { return true }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, chunk, 0) }
            if count == 0 { return true }
            if count < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                return true
            }
            bytesRead.add(count, ordering: .relaxed)
            Monotonic.sleep(seconds: 1)
        }
        return false
    }

    /// `fleetfence_http_streams` from the service's `/metrics`; nil when it does not answer.
    private static func openStreams(port: Int) -> Double? {
        guard let socket = open(port: port, request: "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\n\r\n") else { return nil }
        defer { close(socket) }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        let line = String(decoding: response, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("fleetfence_http_streams ") }
        return line.flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
    }

    /// Connected to 127.0.0.1:`port`, `request` sent; nil if the service does not answer.
    private static func open(
        port: Int,
        request: String = "GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
    ) -> Int32? {
        LoopbackRequest.open(port: port, request: request) { socket in
            // A small window, so that the service's send buffer is what fills up, not ours.
            var size: Int32 = 4096
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            // recv wakes every second, so that stop() is heard.
            var timeout = timeval(tv_sec: 1, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// Stops reading and waits for the thread to end.
    func stop() async {
        stopping.store(true, ordering: .relaxed)
        while !ended.load(ordering: .acquiring) {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
