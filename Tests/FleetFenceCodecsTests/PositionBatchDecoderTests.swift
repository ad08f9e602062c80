import Testing
@testable import FleetFenceCodecs

@Suite("POST /api/positions bodies")
struct PositionBatchDecoderTests {
    @Test func oneObjectOrAnArrayEachElementOnItsOwn() throws {
        let one = try PositionBatchDecoder.decode(Array(#"{"id":"t1","lat":1,"lon":2,"ts":1795600000}"#)).get()
        #expect(one == [.success(ForeignPosition(device: "t1", position: DecodedPosition(lat: 1, lon: 2, timestamp: 1_795_600_000)))])
        let many = try PositionBatchDecoder.decode(Array(#"[{"id":"t1","lat":1,"lon":2},{"lat":1,"lon":2},{"id":"t2","lat":99,"lon":2},7,{"id":"t/3","lat":1,"lon":2},{"id":"t4","latitude":3,"longitude":4,"gps_accuracy":5}]"#)).get()
        #expect(many.count == 6)
        #expect(many[0] == .success(ForeignPosition(device: "t1", position: DecodedPosition(lat: 1, lon: 2))))
        #expect(many[1] == .failure(.missingField("id")))
        #expect(many[2] == .failure(.outOfRange(field: "lat", value: 99)))
        #expect(many[3] == .failure(.notAnObject(found: "number")))
        #expect(many[4] == .failure(.badDeviceID("device id \"t/3\" contains /: it must be one topic level (no /, +, #, NUL or other control character)")))
        #expect(many[5] == .success(ForeignPosition(device: "t4", position: DecodedPosition(lat: 3, lon: 4, accuracy: 5))))
        // A tab: libmosquitto publishes no topic holding a control character, so the device's
        // alerts would be journaled and never published.
        let tab = try PositionBatchDecoder.decode(Array(#"{"id":"tab\tdev","lat":1,"lon":2}"#)).get()
        #expect(tab == [.failure(.badDeviceID(
            "device id \"tab\tdev\" contains U+0009: it must be one topic level (no /, +, #, NUL or other control character)"))])
    }

    @Test func theBodyAsAWholeIsRefusedOnlyWhenItIsNoBatch() {
        #expect(PositionBatchDecoder.decode(Array("[1,")).isFailure)
        #expect(PositionBatchDecoder.decode(Array(#""text""#)) == .failure(.notAnObject(found: "string")))
        let tooMany = "[" + Array(repeating: "{}", count: PositionBatchDecoder.maxElements + 1).joined(separator: ",") + "]"
        #expect(PositionBatchDecoder.decode(Array(tooMany)) == .failure(.tooManyElements(count: 10_001, limit: 10_000)))
        let most = "[" + Array(repeating: "{}", count: PositionBatchDecoder.maxElements).joined(separator: ",") + "]"
        #expect((try? PositionBatchDecoder.decode(Array(most)).get())?.count == 10_000)
    }

    @Test func deviceIDRules() {
        #expect(DeviceIDRules.problem("truck-7") == nil)
        #expect(DeviceIDRules.problem("Bus-Müller") == nil)
        #expect(DeviceIDRules.problem("") == "the device id is empty")
        #expect(DeviceIDRules.problem(String(repeating: "x", count: 256)) == nil)
        #expect(DeviceIDRules.problem(String(repeating: "x", count: 257)) == "device id is 257 bytes long, at most 256 are accepted")
        for bad in ["a/b", "a+", "#", "a\u{0}b"] { #expect(DeviceIDRules.problem(bad) != nil, "\(bad)") }
    }
}
