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

    /// JSON by the grammar that the strict parser refuses for what it says: the element alone is
    /// rejected, with the reason it gets on its own topic, and the others still count.
    @Test(arguments: [
        (#"{"id":"b","lat":1,"lat":2,"lon":2}"#, #"duplicate key "lat" at byte 18 (a key may appear once per object)"#),
        (#"{"id":"\ud800","lat":1,"lon":2}"#, #"invalid \u escape (lone surrogate) at byte 7"#),
        (#"{"id":"b","lat":1,"lon":2,"spd":1e400}"#, #"number out of range at byte 32 (too large for a Double)"#),
    ])
    func anElementTheStrictParserRefusesIsRejectedAlone(element: String, detail: String) throws {
        let decoded = try PositionBatchDecoder.decode(Array(#" [ {"id":"a","lat":1,"lon":2} , "# + element + #",{"id":"c","lat":3,"lon":4,"note":"],{\""}] "#)).get()
        #expect(decoded.count == 3)
        #expect(decoded[0] == .success(ForeignPosition(device: "a", position: DecodedPosition(lat: 1, lon: 2))))
        #expect(decoded[1] == .failure(.notJSON(detail: detail)))
        guard case let .failure(alone) = PositionDecoder.decode(Array(element.utf8), deviceID: "b") else {
            Issue.record("refused on its own topic too")
            return
        }
        #expect(decoded[1] == .failure(alone), "the reason it gets on its own topic")
        #expect(decoded[2] == .success(ForeignPosition(device: "c", position: DecodedPosition(lat: 3, lon: 4))))
    }

    /// On JSON the parser takes, the ranges are its own elements: brackets and commas in strings,
    /// escaped quotes and backslashes, nesting, scalars and whitespace.
    @Test func theRangesAreTheParsersElements() throws {
        for body in [
            #"[1,"a",{"b":[1,{"c":"],{"}]},[],{},"\\\"",null , true ,-1.5e3]"#, "[ ]", "[]", #" [{"x":"\\"}, "\\\\" ] "#,
        ] {
            let bytes = Array(body.utf8)
            guard case let .array(whole) = try JSONParser.parse(bytes).get() else {
                Issue.record("not an array: \(body)")
                continue
            }
            let ranges = try #require(PositionBatchDecoder.elementRanges(bytes), "\(body)")
            #expect(try ranges.map { try JSONParser.parse(Array(bytes[$0])).get() } == whole, "\(body)")
        }
    }

    /// One element breaking the grammar makes the body not JSON, refused element or not, also where
    /// the break comes after what the strict parser refuses in the same element.
    @Test func aGrammarErrorAnywhereStillRefusesTheWholeBody() {
        let refusedElement = #"{"id":"b","lat":1,"lat":2,"lon":2}"#
        for body in [
            "[\(refusedElement),{\"id\":\"c\",}]", "[\(refusedElement),,{}]", "[\(refusedElement),]", "[\(refusedElement) {}]",
            "[\(refusedElement)", "[\(refusedElement)] x", "[\(refusedElement)}", "[\(refusedElement),\"open]",
            "[\(refusedElement){}]", "[\(refusedElement),1 2]", "[\(refusedElement),\"a\"\"b\"]", "[,\(refusedElement)]",
            #"[{"id":"b","lat":1e400 x}]"#, #"[{"id":"\ud800"]]"#, #"[{"x":{"a":1,"a":2} "y"}]"#, "[{\"id\":\"\\ud800\u{01}\"}]",
            "[" + String(repeating: "[", count: JSONParser.maximumDepth) + "{\"a\":1,\"a\":1}" + String(repeating: "]", count: JSONParser.maximumDepth + 1),
        ] {
            #expect(PositionBatchDecoder.decode(Array(body.utf8)).isFailure, "\(body)")
        }
        // The grammar's error, where it is in the body.
        #expect(PositionBatchDecoder.decode(Array("[\(refusedElement),{\"id\":\"c\",}]".utf8))
            == .failure(.notJSON(detail: "trailing comma at byte 45 (not allowed in JSON)")))
        // Not an array: one payload, refused as a whole as before.
        #expect(PositionBatchDecoder.decode(Array(refusedElement.utf8)).isFailure)
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
