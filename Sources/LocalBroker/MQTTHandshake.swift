import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One MQTT 3.1.1 CONNECT on a loopback port, answered by a CONNACK that accepts it: what tells a
/// NATS node ready for MQTT clients. Its MQTT port accepts TCP at once, but it holds a CONNECT
/// until JetStream, where MQTT keeps its state, has a leader and its MQTT streams (docs/several-instances.md
/// "Several instances"). Written out here because LocalBroker does not link libmosquitto.
enum MQTTHandshake {
    /// `true` when a clean-session CONNECT as `clientID` is accepted within `timeout`; the
    /// connection is then closed with a DISCONNECT.
    static func accepted(port: Int, clientID: String, timeout: Duration) -> Bool {
        guard let fd = LoopbackPort.connected(to: port) else { return false }
        defer { close(fd) }
        let (seconds, attoseconds) = timeout.components
        var limit = timeval(tv_sec: Int(seconds), tv_usec: .init(attoseconds / 1_000_000_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard send(fd, connectPacket(clientID: clientID)) else { return false }
        // CONNACK: type 2, remaining length 2, flags, return code 0 = accepted.
        var answer = [UInt8](repeating: 0, count: 4)
        var received = 0
        while received < 4 {
            let n = answer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + received, 4 - received) }
            if n <= 0 { return false }
            received += n
        }
        guard answer[0] == 0x20, answer[1] == 2, answer[3] == 0 else { return false }
        _ = send(fd, [0xE0, 0x00])
        return true
    }

    private static func connectPacket(clientID: String) -> [UInt8] {
        let id = Array(clientID.utf8.prefix(200))
        // Protocol name "MQTT", level 4 (3.1.1), flags: clean session, keep-alive 60 s.
        var body: [UInt8] = [0x00, 0x04, 0x4D, 0x51, 0x54, 0x54, 0x04, 0x02, 0x00, 0x3C]
        body += [UInt8(id.count >> 8), UInt8(id.count & 0xFF)] + id
        // The remaining length fits one byte: at most 10 + 2 + 200.
        return [0x10, UInt8(body.count)] + body
    }

    private static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + sent, bytes.count - sent) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }
}
