@testable import FleetFenceCodecs

extension Array where Element == UInt8 {
    init(_ text: String) { self = Array(text.utf8) }
}

/// Equal, with every Double compared bit for bit (so +0.0 and -0.0 differ).
func identical(_ a: Result<DecodedPosition, PositionRejection>, _ b: Result<DecodedPosition, PositionRejection>) -> Bool {
    switch (a, b) {
    case let (.success(x), .success(y)):
        func same(_ p: Double?, _ q: Double?) -> Bool { p?.bitPattern == q?.bitPattern }
        return x.lat.bitPattern == y.lat.bitPattern && x.lon.bitPattern == y.lon.bitPattern
            && same(x.timestamp, y.timestamp) && same(x.accuracy, y.accuracy) && same(x.speed, y.speed)
            && same(x.heading, y.heading)
    case let (.failure(x), .failure(y)):
        return x == y
    default:
        return false
    }
}

enum Dialect: CaseIterable, Sendable {
    case native, ownTracks
}

/// The scanner's answer (`nil` when it defers), the public answer, and the reference answer for one payload.
struct Answers {
    var fast: Result<DecodedPosition, PositionRejection>?
    var decoded: Result<DecodedPosition, PositionRejection>
    var reference: Result<DecodedPosition, PositionRejection>

    /// The fast path, when it answers, and the public decoder both agree with the reference.
    var agree: Bool {
        (fast.map { identical($0, reference) } ?? true) && identical(decoded, reference)
    }
}

let testDevice = "truck-7"

/// Runs `body` on a copy of `bytes` in an allocation of exactly their size, so that a read past the end
/// lands in AddressSanitizer's redzone (`swift test --sanitize=address`) instead of an array's spare capacity.
func withExactBytes<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) -> R) -> R {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
    defer { buffer.deallocate() }
    bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
    return body(UnsafeRawBufferPointer(buffer))
}

func answers(_ payload: [UInt8], dialect: Dialect, device: String = testDevice) -> Answers {
    withExactBytes(payload) { raw in
        switch dialect {
        case .native:
            Answers(
                fast: PositionDecoder.decodeFast(raw, deviceID: device),
                decoded: PositionDecoder.decode(raw, deviceID: device),
                reference: PositionDecoder.decodeWithParser(raw, deviceID: device)
            )
        case .ownTracks:
            Answers(
                fast: PositionDecoder.decodeOwnTracksFast(raw, deviceID: device),
                decoded: PositionDecoder.decodeOwnTracks(raw, deviceID: device),
                reference: PositionDecoder.decodeOwnTracksWithParser(raw, deviceID: device)
            )
        }
    }
}

func describe(_ payload: [UInt8]) -> String {
    let text = String(decoding: payload, as: UTF8.self)
    return "\(text.debugDescription) bytes=\(payload.prefix(120).map { String($0, radix: 16) }.joined(separator: " "))"
}
