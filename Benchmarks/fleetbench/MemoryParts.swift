import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The service's own count of what it holds for its devices, by part (`GET /api/memory`,
/// docs/http.md "Memory"), read beside its resident size at each step of the scale phase.
struct MemoryParts: Sendable {
    /// Part names and bytes, in the service's order.
    var parts: [(name: String, bytes: Int)] = []
    var devices = 0
    /// What the allocator held free (`heap_free`), nil where the service cannot tell.
    var heapFree: Int?
    /// How long the service took to answer: the count walks every device.
    var seconds = 0.0

    /// Nil when the service does not answer it (a build without it, or no HTTP interface).
    static func read(port: Int?) -> MemoryParts? {
        // The service answers a request within a second of its last count with that count.
        Monotonic.sleep(seconds: 1.1)
        let start = Monotonic.nanos()
        guard let port,
              let fd = LoopbackRequest.open(
                  port: port, request: "GET /api/memory?heap_free=true HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                  configure: { fd in
                      // A service that stopped answering ends the read, not the benchmark.
                      var timeout = timeval(tv_sec: 30, tv_usec: 0)
                      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                  })
        else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        close(fd)
        let text = String(decoding: response, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 200"), let split = text.range(of: "\r\n\r\n"),
              let object = try? JSONSerialization.jsonObject(with: Data(text[split.upperBound...].utf8)) as? [String: Any],
              let parts = object["parts"] as? [String: Any], let devices = object["devices"] as? Int
        else { return nil }
        var result = MemoryParts(devices: devices, heapFree: object["heap_free"] as? Int, seconds: Monotonic.since(start))
        // In the order the service writes them (JSONSerialization keeps no order).
        let order = text[split.upperBound...].components(separatedBy: "\"").filter { parts[$0] != nil }
        for name in order where !result.parts.contains(where: { $0.name == name }) {
            result.parts.append((name, parts[name] as? Int ?? 0))
        }
        return result
    }

    /// Each part's bytes a device between `baseline` and this count.
    func perDevice(since baseline: MemoryParts?, devices: Int) -> [(name: String, bytes: Double)] {
        parts.map { part in
            let before = baseline?.parts.first { $0.name == part.name }?.bytes ?? 0
            return (part.name, Double(part.bytes - before) / Double(max(devices, 1)))
        }
    }
}
