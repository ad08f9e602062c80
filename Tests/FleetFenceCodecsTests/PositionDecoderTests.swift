import Testing
@testable import FleetFenceCodecs

@Suite("Position decoding: meaning")
struct PositionDecoderTests {
    private func decode(_ text: String, device: String = testDevice) -> Result<DecodedPosition, PositionRejection> {
        let a = answers(Array(text), dialect: .native, device: device)
        #expect(a.agree, "fast and reference disagree on \(text)")
        return a.reference
    }

    private func ownTracks(_ text: String) -> Result<DecodedPosition, PositionRejection> {
        let a = answers(Array(text), dialect: .ownTracks)
        #expect(a.agree, "fast and reference disagree on \(text)")
        return a.reference
    }

    @Test func contractExample() throws {
        let text = #"{"lat": 49.293406, "lon": 8.641362, "ts": 1795600000.5, "acc": 8.0, "spd": 13.4, "hdg": 270}"#
        let p = try decode(text).get()
        #expect(p == DecodedPosition(lat: 49.293406, lon: 8.641362, timestamp: 1_795_600_000.5, accuracy: 8, speed: 13.4, heading: 270))
        #expect(answers(Array(text), dialect: .native).fast != nil)
    }

    @Test func fastPathTakesTheUsualPayloads() {
        let usual = [
            #"{"lat":49.293406,"lon":8.641362,"ts":1795600000.5,"acc":8.0,"spd":13.4,"hdg":270}"#,
            #"{"latitude":52.3731339,"longitude":4.8903147,"gps_accuracy":12,"battery":80,"source_type":"gps"}"#,
            #"{ "lat" : -33.8688 , "lon" : 151.2093 , "ts" : "2026-11-22T10:00:05.500Z" , "id" : "truck-7" }"#,
            #"{"lat":1,"lon":2,"extra":{"a":[1,2,{"b":null}],"c":true},"list":[],"o":{}}"#,
        ]
        for text in usual {
            let a = answers(Array(text), dialect: .native)
            #expect(a.fast != nil, "scanner deferred on \(text)")
            #expect(a.agree)
        }
        let own = #"{"_type":"location","acc":5,"alt":100,"batt":80,"conn":"w","lat":48.85,"lon":2.35,"tid":"ab","tst":1700000000,"inregions":["home","work"],"topic":"owntracks/u/d"}"#
        let a = answers(Array(own), dialect: .ownTracks)
        #expect(a.fast != nil)
        #expect(a.agree)
    }

    @Test func minimalPayloadHasNoOptionals() throws {
        let p = try decode(#"{"lat":0,"lon":0}"#).get()
        #expect(p == DecodedPosition(lat: 0, lon: 0))
    }

    @Test func homeAssistantSpellings() throws {
        let p = try decode(#"{"latitude": 52.37, "longitude": 4.89, "gps_accuracy": 12}"#).get()
        #expect(p.lat == 52.37 && p.lon == 4.89 && p.accuracy == 12)
    }

    @Test func nativeSpellingWinsOverHomeAssistant() throws {
        let p = try decode(#"{"latitude": 1, "lat": 2, "longitude": 3, "lon": 4, "gps_accuracy": 5, "acc": 6}"#).get()
        #expect(p.lat == 2 && p.lon == 4 && p.accuracy == 6)
        // Presence decides, not validity: a bad native key is reported even when the other spelling is fine.
        #expect(decode(#"{"lat": "x", "latitude": 1, "lon": 2}"#) == .failure(.wrongType(field: "lat", expected: "a number", got: "a string")))
    }

    /// docs/topics-and-payloads.md "Fences": a repeated key, a field of ours or any other, and a leading byte order mark are refused.
    @Test func repeatedKeysAndByteOrderMarkAreRefused() {
        #expect(decode(#"{"lat": 1, "lon": 2, "lat": 3}"#)
            == .failure(.notJSON(detail: #"duplicate key "lat" at byte 21 (a key may appear once per object)"#)))
        #expect(decode(#"{"lat": 1, "lon": 2, "note": "a", "note": "b"}"#)
            == .failure(.notJSON(detail: #"duplicate key "note" at byte 34 (a key may appear once per object)"#)))
        #expect(decode(#"{"lat": 1, "lon": 2, "x": {"y": 1, "y": 1}}"#)
            == .failure(.notJSON(detail: #"duplicate key "y" at byte 35 (a key may appear once per object)"#)))
        #expect(PositionDecoder.decode([0xEF, 0xBB, 0xBF] + Array(#"{"lat": 1, "lon": 2}"#.utf8), deviceID: testDevice)
            == .failure(.notJSON(detail: "byte order mark at byte 0 (JSON text must not start with U+FEFF)")))
        #expect(PositionDecoder.decodeOwnTracks(Array(#"{"_type":"location","_type":"lwt","lat":1,"lon":2}"#.utf8), deviceID: "u-d")
            == .failure(.notJSON(detail: #"duplicate key "_type" at byte 20 (a key may appear once per object)"#)))
    }

    @Test func timestamps() throws {
        #expect(try decode(#"{"lat":1,"lon":2,"ts":1795600005.5}"#).get().timestamp == 1_795_600_005.5)
        #expect(try decode(#"{"lat":1,"lon":2,"ts":"2026-11-22T10:00:05.500Z"}"#).get().timestamp == RFC3339.parse("2026-11-22T10:00:05.5Z"))
        #expect(try decode(#"{"lat":1,"lon":2,"ts":"2026-11-22T11:00:05+01:00"}"#).get().timestamp == RFC3339.parse("2026-11-22T10:00:05Z"))
        #expect(try decode(#"{"lat":1,"lon":2,"ts":null}"#).get().timestamp == nil)
        #expect(decode(#"{"lat":1,"lon":2,"ts":"yesterday"}"#) == .failure(.badTimestamp(field: "ts", text: "yesterday")))
        #expect(decode(#"{"lat":1,"lon":2,"ts":0}"#) == .failure(.outOfRange(field: "ts", value: 0)))
        #expect(decode(#"{"lat":1,"lon":2,"ts":-5}"#) == .failure(.outOfRange(field: "ts", value: -5)))
        // Milliseconds by mistake: past year 9999, so refused rather than taken as the far future.
        #expect(decode(#"{"lat":1,"lon":2,"ts":1795600005500}"#) == .failure(.outOfRange(field: "ts", value: 1_795_600_005_500)))
        #expect(decode(#"{"lat":1,"lon":2,"ts":"1969-12-31T23:59:59Z"}"#) == .failure(.outOfRange(field: "ts", value: -1)))
        #expect(decode(#"{"lat":1,"lon":2,"ts":true}"#) == .failure(.wrongType(field: "ts", expected: "a number or an RFC 3339 string", got: "a boolean")))
    }

    @Test func speedAndHeading() throws {
        let p = try decode(#"{"lat":1,"lon":2,"spd":-1,"hdg":-1}"#).get()
        #expect(p.speed == nil && p.heading == nil)
        let q = try decode(#"{"lat":1,"lon":2,"spd":0,"hdg":360}"#).get()
        #expect(q.speed == 0 && q.heading == 360)
        #expect(try decode(#"{"lat":1,"lon":2,"hdg":361}"#).get().heading == nil)
        // A speed past what km/h can hold is unknown, as a negative one is: an alert's max_speed_kmh
        // would be infinite, which JSON cannot say.
        #expect(try decode(#"{"lat":1,"lon":2,"spd":1e308}"#).get().speed == nil)
        #expect(try decode(#"{"lat":1,"lon":2,"spd":1e300}"#).get().speed == 1e300)
        #expect(decode(#"{"lat":1,"lon":2,"spd":"fast"}"#) == .failure(.wrongType(field: "spd", expected: "a number", got: "a string")))
    }

    @Test func idMustMatchTheTopic() throws {
        #expect(try decode(#"{"lat":1,"lon":2,"id":"truck-7"}"#).get().lat == 1)
        #expect(try decode(#"{"lat":1,"lon":2,"id":null}"#).get().lat == 1)
        #expect(decode(#"{"lat":1,"lon":2,"id":"truck-8"}"#) == .failure(.idMismatch(expected: "truck-7", got: "truck-8")))
        #expect(decode(#"{"lat":1,"lon":2,"id":7}"#) == .failure(.wrongType(field: "id", expected: "a string", got: "a number")))
        // String equality is Unicode's: KELVIN SIGN equals K, as it does for the reference.
        #expect((try? decode(#"{"lat":1,"lon":2,"id":"K-1"}"#, device: "\u{212A}-1").get()) != nil)
        #expect((try? decode("{\"lat\":1,\"lon\":2,\"id\":\"\u{212A}-1\"}", device: "K-1").get()) != nil)
        #expect((try? decode(#"{"lat":1,"lon":2,"id":"Lkw-\u00fc"}"#, device: "Lkw-ü").get()) != nil)
    }

    @Test func everyRejection() {
        #expect(decode("") == .failure(.notJSON(detail: "unexpected end of input at byte 0 (expected a value)")))
        #expect(decode(#"{"lat":1,"lon":2,}"#) == .failure(.notJSON(detail: "trailing comma at byte 16 (not allowed in JSON)")))
        guard case .failure(.notJSON) = decode(#"{"lat":1,"lon":2"#) else { Issue.record("truncated"); return }
        guard case .failure(.notJSON) = decode(#"{"lat":NaN,"lon":2}"#) else { Issue.record("NaN"); return }
        guard case .failure(.notJSON) = decode(#"{"lat":1e400,"lon":2}"#) else { Issue.record("1e400"); return }
        #expect(decode("[1,2]") == .failure(.notAnObject(found: "array")))
        #expect(decode("42") == .failure(.notAnObject(found: "number")))
        #expect(decode("\"x\"") == .failure(.notAnObject(found: "string")))
        #expect(decode("null") == .failure(.notAnObject(found: "null")))
        #expect(decode("true") == .failure(.notAnObject(found: "boolean")))
        #expect(decode(#"{"lon":2}"#) == .failure(.missingField("lat")))
        #expect(decode(#"{"lat":2}"#) == .failure(.missingField("lon")))
        #expect(decode(#"{"lat":true,"lon":2}"#) == .failure(.wrongType(field: "lat", expected: "a number", got: "a boolean")))
        #expect(decode(#"{"lat":null,"lon":2}"#) == .failure(.wrongType(field: "lat", expected: "a number", got: "null")))
        #expect(decode(#"{"lat":[1],"lon":2}"#) == .failure(.wrongType(field: "lat", expected: "a number", got: "an array")))
        #expect(decode(#"{"lat":1,"longitude":{}}"#) == .failure(.wrongType(field: "longitude", expected: "a number", got: "an object")))
        #expect(decode(#"{"lat":"49.1","lon":2}"#) == .failure(.wrongType(field: "lat", expected: "a number", got: "a string")))
        #expect(decode(#"{"lat":90.0001,"lon":2}"#) == .failure(.outOfRange(field: "lat", value: 90.0001)))
        #expect(decode(#"{"lat":1,"lon":-180.5}"#) == .failure(.outOfRange(field: "lon", value: -180.5)))
        #expect(decode(#"{"latitude":-91,"lon":2}"#) == .failure(.outOfRange(field: "latitude", value: -91)))
        #expect(decode(#"{"lat":1,"lon":2,"acc":-1}"#) == .failure(.outOfRange(field: "acc", value: -1)))
        #expect(decode(#"{"lat":1,"lon":2,"gps_accuracy":-3}"#) == .failure(.outOfRange(field: "gps_accuracy", value: -3)))
        #expect(decode(#"{"lat":1,"lon":2,"acc":"good"}"#) == .failure(.wrongType(field: "acc", expected: "a number", got: "a string")))
        let big = [UInt8](repeating: UInt8(ascii: " "), count: 1 << 20)
        #expect(PositionDecoder.decode(big, deviceID: testDevice) == .failure(.tooLarge(bytes: 1 << 20)))
        #expect(big.withUnsafeBytes { PositionDecoder.decodeWithParser($0, deviceID: testDevice) } == .failure(.tooLarge(bytes: 1 << 20)))
        #expect(ownTracks(#"{"_type":"transition","lat":1,"lon":2}"#) == .failure(.ignored(reason: #"OwnTracks _type "transition" is not a location"#)))
    }

    @Test func limitIsInclusive() {
        var exact = Array(#"{"lat":1,"lon":2}"#.utf8)
        exact += [UInt8](repeating: UInt8(ascii: " "), count: PositionDecoder.maxPayloadBytes - exact.count)
        #expect((try? PositionDecoder.decode(exact, deviceID: testDevice).get()) != nil)
        exact.append(UInt8(ascii: " "))
        #expect(PositionDecoder.decode(exact, deviceID: testDevice) == .failure(.tooLarge(bytes: PositionDecoder.maxPayloadBytes + 1)))
    }

    @Test func faultsAreReportedInAFixedOrder() {
        // id first, then lat, lon, ts, acc, spd, hdg: whatever the order of keys in the payload.
        #expect(decode(#"{"acc":-1,"lat":100,"id":"x"}"#) == .failure(.idMismatch(expected: "truck-7", got: "x")))
        #expect(decode(#"{"acc":-1,"lon":500,"lat":100}"#) == .failure(.outOfRange(field: "lat", value: 100)))
        #expect(decode(#"{"acc":-1,"ts":"x","lat":1,"lon":1}"#) == .failure(.badTimestamp(field: "ts", text: "x")))
    }

    @Test func ownTracksLocations() throws {
        let p = try ownTracks(#"{"_type":"location","lat":48.85,"lon":2.35,"tst":1700000000,"acc":5,"vel":30,"cog":90}"#).get()
        // vel is km/h; speed limits compare m/s.
        #expect(p == DecodedPosition(lat: 48.85, lon: 2.35, timestamp: 1_700_000_000, accuracy: 5, speed: 30 / 3.6, heading: 90))
        // An app's odd extra is unknown, never a reason to lose the position.
        for odd in [#""vel":-1,"cog":400"#, #""vel":"fast","cog":null"#, #""vel":[1],"cog":{}"#] {
            let q = try ownTracks(#"{"_type":"location","lat":48.85,"lon":2.35,"#  + odd + "}").get()
            #expect(q == DecodedPosition(lat: 48.85, lon: 2.35, timestamp: nil, accuracy: nil), "\(odd)")
        }
        #expect(ownTracks(#"{"lat":48.85,"lon":2.35}"#) == .failure(.missingField("_type")))
        #expect(ownTracks(#"{"_type":1,"lat":48.85,"lon":2.35}"#) == .failure(.wrongType(field: "_type", expected: "a string", got: "a number")))
        #expect(ownTracks(#"{"_type":"location","lat":48.85,"lon":2.35,"tst":"soon"}"#) == .failure(.badTimestamp(field: "tst", text: "soon")))
        // OwnTracks has no Home Assistant spellings; an id must name the topic's <user>-<device>.
        #expect(ownTracks(#"{"_type":"location","latitude":48.85,"lon":2.35}"#) == .failure(.missingField("lat")))
        #expect(ownTracks(#"{"_type":"location","lat":1,"lon":2,"id":"whatever"}"#)
            == .failure(.idMismatch(expected: testDevice, got: "whatever")))
        #expect((try? ownTracks(#"{"_type":"location","lat":1,"lon":2,"id":"\#(testDevice)"}"#).get()) != nil)
        // Other _types are ignored whatever id they carry.
        #expect(ownTracks(#"{"_type":"transition","id":"someone-else"}"#)
            == .failure(.ignored(reason: #"OwnTracks _type "transition" is not a location"#)))
        #expect(ownTracks(#"{"_type":"encrypted","data":"abc"}"#) == .failure(.ignored(reason: #"OwnTracks _type "encrypted" is not a location"#)))
        #expect(PositionRejection.ignored(reason: "x").isIgnored)
    }

    @Test func descriptionsSayWhatIsWrong() {
        #expect(PositionRejection.missingField("lat").description == #"missing field "lat""#)
        #expect(PositionRejection.outOfRange(field: "lat", value: 91).description == #"field "lat" is 91.0, must be within [-90, 90]"#)
        #expect(PositionRejection.idMismatch(expected: "a", got: "b").description == #"field "id" is "b" but the topic's device is "a""#)
        #expect(PositionRejection.tooLarge(bytes: 70000).description == "payload is 70000 bytes, more than the 65536 allowed")
        #expect(PositionRejection.wrongType(field: "lat", expected: "a number", got: "a string").description == #"field "lat" must be a number, not a string"#)
        #expect(PositionRejection.notAnObject(found: "array").description == "payload is a JSON array, expected an object")
        #expect(PositionRejection.outOfRange(field: "ts", value: 1e13).description.contains("milliseconds"))
        // The hint fits only a time too large, not a negative one.
        #expect(!PositionRejection.outOfRange(field: "ts", value: -1).description.contains("milliseconds"))
    }

    @Test func sampleUsesArrivalTimeWhenThereIsNoTimestamp() {
        let p = DecodedPosition(lat: 1, lon: 2, accuracy: 3)
        #expect(p.sample(arrival: 100).timestamp == 100)
        #expect(DecodedPosition(lat: 1, lon: 2, timestamp: 50).sample(arrival: 100).timestamp == 50)
        #expect(p.sample(arrival: 100).accuracy == 3)
    }
}
