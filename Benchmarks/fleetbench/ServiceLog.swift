import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The service's standard error, read on a thread of its own: copied to a file, and the lines the
/// benchmark needs picked out (the `stats ... positions=N` line every `--stats-interval`, `fences loaded`).
final class ServiceLog: Sendable {
    struct Snapshot: Sendable {
        /// `positions=` of the latest stats line: positions decoded so far.
        var positions = 0
        /// `devices=` of the latest stats line: devices the engine knows.
        var devices = 0
        /// `alerts=` of the latest stats line: alerts published so far.
        var alerts = 0
        var statsLines = 0
        var lastStatsNanos: UInt64 = 0
        var lastStatsLine = ""
        var servingNanos: UInt64?
        /// The HTTP interface's port, from `http listening ... port=N`.
        var httpPort: Int?
        var fencesLoadedNanos: UInt64?
        var fencesAdded = 0
        var warnings = 0
        var tail: [String] = []
        var ended = false
    }

    private let state = Mutex(Snapshot())

    var snapshot: Snapshot { state.withLock { $0 } }

    var tailText: String { snapshot.tail.suffix(15).joined(separator: "\n") }

    /// Starts the reader thread; it owns `descriptor` and closes it at end of file.
    func startReading(_ descriptor: Int32, copyTo logPath: String) {
        let copy = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        let thread = Thread { [self] in
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                if copy >= 0 { _ = buffer.withUnsafeBytes { write(copy, $0.baseAddress, count) } }
                pending.append(contentsOf: buffer[0..<count])
                var lineStart = 0
                for index in 0..<pending.count where pending[index] == UInt8(ascii: "\n") {
                    consume(String(decoding: pending[lineStart..<index], as: UTF8.self))
                    lineStart = index + 1
                }
                pending.removeFirst(lineStart)
            }
            if !pending.isEmpty { consume(String(decoding: pending, as: UTF8.self)) }
            close(descriptor)
            if copy >= 0 { close(copy) }
            state.withLock { $0.ended = true }
        }
        thread.name = "fleetfence stderr"
        thread.start()
    }

    private func consume(_ line: String) {
        let now = Monotonic.nanos()
        state.withLock { snapshot in
            snapshot.tail.append(line)
            if snapshot.tail.count > 40 { snapshot.tail.removeFirst(snapshot.tail.count - 40) }
            if line.contains("stats positions/s=") {
                snapshot.positions = Self.number(after: " positions=", in: line) ?? snapshot.positions
                snapshot.devices = Self.number(after: " devices=", in: line) ?? snapshot.devices
                snapshot.alerts = Self.number(after: " alerts=", in: line) ?? snapshot.alerts
                snapshot.statsLines += 1
                snapshot.lastStatsNanos = now
                snapshot.lastStatsLine = line
            } else if line.contains("fence added") {
                snapshot.fencesAdded += 1
            } else if line.contains("fences loaded") {
                snapshot.fencesLoadedNanos = now
            } else if line.contains("http listening") {
                snapshot.httpPort = Self.number(after: " port=", in: line)
            } else if line.contains("fleetfence serving") {
                snapshot.servingNanos = now
            } else if line.contains(" warning ") || line.contains(" error ") {
                snapshot.warnings += 1
            }
        }
    }

    private static func number(after key: String, in line: String) -> Int? {
        guard let range = line.range(of: key) else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }
}
