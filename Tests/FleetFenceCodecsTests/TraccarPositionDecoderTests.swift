import Testing
@testable import FleetFenceCodecs

@Suite("Traccar's forwarded positions")
struct TraccarPositionDecoderTests {
    /// A payload as Traccar's MQTT forwarder writes it (trimmed of fields FleetFence does not read).
    static func payload(position: String, uniqueId: String = #""truck-9""#) -> [UInt8] {
        Array(#"{"position":{"id":1,"deviceId":7,"protocol":"osmand",\#(position),"network":null},"device":{"id":7,"name":"Truck 9","uniqueId":\#(uniqueId),"status":"online"}}"#)
    }

    static let good = #""valid":true,"fixTime":"2026-11-27T10:00:00.000+00:00","latitude":49.2934,"longitude":8.6413,"speed":10.0,"course":270.0,"accuracy":12.5"#

    @Test func readsTheDeviceFromThePayloadAndConvertsUnits() throws {
        let decoded = try TraccarPositionDecoder.decode(Self.payload(position: Self.good)).get()
        #expect(decoded.device == "truck-9")
        #expect(decoded.position.lat == 49.2934 && decoded.position.lon == 8.6413)
        // 2026-11-27T10:00:00Z.
        #expect(decoded.position.timestamp == 1_795_773_600)
        #expect(decoded.position.accuracy == 12.5)
        // 10 knots are 5.1444 m/s.
        #expect(abs((decoded.position.speed ?? 0) - 5.144_444) < 1e-5)
        #expect(decoded.position.heading == 270)
    }

    @Test func offsetsAreApplied() throws {
        let plusTwo = #""fixTime":"2026-11-27T12:00:00.000+02:00","latitude":1,"longitude":2"#
        #expect(try TraccarPositionDecoder.decode(Self.payload(position: plusTwo)).get().position.timestamp == 1_795_773_600)
        let noColon = #""fixTime":"2026-11-27T10:00:00.000+0000","latitude":1,"longitude":2"#
        #expect(try TraccarPositionDecoder.decode(Self.payload(position: noColon)).get().position.timestamp == 1_795_773_600)
    }

    /// A number, as a Traccar whose JSON writer writes dates as timestamps sends: milliseconds, or
    /// seconds below 10^11, never a time in 1970.
    @Test func aNumericFixTimeIsEpochMillisecondsOrSeconds() throws {
        let millis = #""fixTime":1795773600000,"latitude":1,"longitude":2"#
        #expect(try TraccarPositionDecoder.decode(Self.payload(position: millis)).get().position.timestamp == 1_795_773_600)
        let seconds = #""fixTime":1795773600.5,"latitude":1,"longitude":2"#
        #expect(try TraccarPositionDecoder.decode(Self.payload(position: seconds)).get().position.timestamp == 1_795_773_600.5)
    }

    @Test func zeroAccuracyIsUnknown() throws {
        let zero = #""latitude":1,"longitude":2,"accuracy":0"#
        #expect(try TraccarPositionDecoder.decode(Self.payload(position: zero)).get().position.accuracy == nil)
    }

    @Test func anInvalidFixIsIgnoredNotRejected() {
        let result = TraccarPositionDecoder.decode(Self.payload(position: #""valid":false,"latitude":0,"longitude":0"#))
        guard case let .failure(rejection) = result else { Issue.record("accepted: \(result)"); return }
        #expect(rejection.isIgnored)
    }

    @Test("bad input is rejected with a reason", arguments: [
        (#""latitude":91,"longitude":2"#, #""truck-9""#, #"field "position.latitude" is 91.0, must be within [-90, 90]"#),
        (#""longitude":2"#, #""truck-9""#, #"missing field "position.latitude""#),
        (#""latitude":"49","longitude":2"#, #""truck-9""#, #"field "position.latitude" must be a number, not a string"#),
        (#""latitude":1,"longitude":2,"fixTime":"yesterday""#, #""truck-9""#, #"field "position.fixTime" is "yesterday", which is not a number or an ISO 8601 time"#),
        (#""latitude":1,"longitude":2,"accuracy":-1"#, #""truck-9""#, #"field "position.accuracy" is -1.0, must be >= 0 metres"#),
        (#""latitude":1,"longitude":2"#, #""a/b""#, "device id \"a/b\" contains /: it must be one topic level (no /, +, #, NUL or other control character)"),
        (#""latitude":1,"longitude":2"#, #""""#, "the device id is empty"),
        (#""latitude":1,"longitude":2"#, "7", #"field "device.uniqueId" must be a string, not a number"#),
    ])
    func rejections(position: String, uniqueId: String, reason: String) {
        let result = TraccarPositionDecoder.decode(Self.payload(position: position, uniqueId: uniqueId))
        guard case let .failure(rejection) = result else { Issue.record("accepted: \(result)"); return }
        #expect(rejection.description == reason)
    }

    @Test func notTraccarAtAll() {
        #expect(TraccarPositionDecoder.decode(Array(#"{"lat":1,"lon":2}"#)) == .failure(.missingField("device")))
        #expect(TraccarPositionDecoder.decode(Array("[1]")) == .failure(.notAnObject(found: "array")))
        let big = [UInt8](repeating: UInt8(ascii: " "), count: PositionDecoder.maxPayloadBytes + 1)
        #expect(TraccarPositionDecoder.decode(big) == .failure(.tooLarge(bytes: big.count)))
    }

    @Test func theDeviceOfARejectedPositionIsFoundForItsErrorsTopic() {
        let payload = Self.payload(position: #""latitude":91,"longitude":2"#)
        #expect(payload.withUnsafeBytes { TraccarPositionDecoder.deviceID(in: $0) } == "truck-9")
        let slashed = Self.payload(position: #""latitude":1,"longitude":2"#, uniqueId: #""a/b""#)
        #expect(slashed.withUnsafeBytes { TraccarPositionDecoder.deviceID(in: $0) } == nil)
    }
}
