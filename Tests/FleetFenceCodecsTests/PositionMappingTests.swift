import Testing
@testable import FleetFenceCodecs

@Suite("Custom mappings and JSON Pointers")
struct PositionMappingTests {
    @Test func pointersFollowRFC6901() throws {
        let document = try JSONParser.parse(Array(#"{"a/b":{"m~n":[10,{"x":true}]},"":1,"list":[0,1]}"#)).get()
        #expect(JSONPointer("")?.resolve(in: document) == document)
        #expect(JSONPointer("/a~1b/m~0n/0")?.resolve(in: document) == .number(10))
        #expect(JSONPointer("/a~1b/m~0n/1/x")?.resolve(in: document) == .bool(true))
        #expect(JSONPointer("/")?.resolve(in: document) == .number(1))
        #expect(JSONPointer("/list/01")?.resolve(in: document) == nil, "no leading zeros")
        #expect(JSONPointer("/list/2")?.resolve(in: document) == nil)
        #expect(JSONPointer("/list/-")?.resolve(in: document) == nil)
        #expect(JSONPointer("/list/0/deeper")?.resolve(in: document) == nil)
        #expect(JSONPointer("a") == nil, "must start with /")
        #expect(JSONPointer("/a~2") == nil, "~ only before 0 or 1")
        #expect(JSONPointer("/a~") == nil)
    }

    static func mapping(_ entry: [String: String]) throws -> PositionMapping {
        try PositionMapping(entry: entry)
    }

    static func decode(_ mapping: PositionMapping, _ payload: String, topic: String) -> Result<ForeignPosition, PositionRejection> {
        Array(payload).withUnsafeBytes { mapping.decode($0, topic: topic) }
    }

    @Test func aWorkedMapping() throws {
        let mapping = try Self.mapping([
            "topic": "acme/+/gps", "id": "topic:2", "lat": "/fix/lat", "lon": "/fix/lon", "ts": "/fix/time", "ts_unit": "ms",
            "acc": "/fix/err", "spd": "/fix/kmh", "spd_unit": "km/h",
        ])
        let decoded = try Self.decode(
            mapping, #"{"fix":{"lat":"49.29","lon":8.64,"time":1795600000250,"err":"6","kmh":36}}"#, topic: "acme/van-3/gps"
        ).get()
        #expect(decoded == ForeignPosition(
            device: "van-3", position: DecodedPosition(lat: 49.29, lon: 8.64, timestamp: 1_795_600_000.25, accuracy: 6, speed: 10)))
    }

    /// Seconds under `ts_unit: ms` (a unit set wrong) are refused, as milliseconds under seconds
    /// are: taken, they dated the fix in January 1970.
    @Test func secondsUnderAMillisecondsUnitAreRefused() throws {
        let mapping = try Self.mapping(["topic": "acme/+/gps", "id": "topic:2", "lat": "/lat", "lon": "/lon", "ts": "/t", "ts_unit": "ms"])
        let refused = Self.decode(mapping, #"{"lat":49.29,"lon":8.64,"t":1796107702}"#, topic: "acme/van-3/gps")
        guard case let .failure(rejection) = refused else { Issue.record("accepted: \(refused)"); return }
        #expect(rejection.description.contains("after March 1973"), "\(rejection.description)")
        let taken = try Self.decode(mapping, #"{"lat":49.29,"lon":8.64,"t":1796107702000}"#, topic: "acme/van-3/gps").get()
        #expect(taken.position.timestamp == 1_796_107_702)
    }

    @Test func idByPointerAndLatLonInOneString() throws {
        let mapping = try Self.mapping(["topic": "gps/#", "id": "/imei", "latlon": "/pos", "ts": "/at", "ts_unit": "rfc3339"])
        let decoded = try Self.decode(mapping, #"{"imei":"35-1","pos":"49.29, 8.64","at":"2026-11-25T09:46:40Z"}"#, topic: "gps/x").get()
        #expect(decoded == ForeignPosition(device: "35-1", position: DecodedPosition(lat: 49.29, lon: 8.64, timestamp: 1_795_600_000)))
    }

    /// A tracker's IMEI sent as a JSON number is its id in decimal, as the same IMEI in a string.
    @Test func aWholeNumberIDIsTheDeviceInDecimal() throws {
        let mapping = try Self.mapping(["topic": "gps/#", "id": "/imei", "latlon": "/pos"])
        let payload = #"{"imei":356307042441013,"pos":"49.29,8.64"}"#
        #expect(try Self.decode(mapping, payload, topic: "gps/x").get().device == "356307042441013")
        let id = Array(payload).withUnsafeBytes { mapping.deviceID(in: $0, topic: "gps/x") }
        #expect(id == "356307042441013")
    }

    @Test("bad payloads are rejected with a reason naming the pointer", arguments: [
        (#"{"imei":"a","pos":"91,2"}"#, #"field "lat (latlon /pos)" is 91.0, must be within [-90, 90]"#),
        (#"{"imei":"a","pos":"1;2"}"#, #"field "latlon (/pos)" must be a string "lat,lon", not "1;2""#),
        (#"{"imei":"a"}"#, #"missing field "latlon (/pos)""#),
        (#"{"imei":"a/b","pos":"1,2"}"#, "device id \"a/b\" contains /: it must be one topic level (no /, +, #, NUL or other control character)"),
        (#"{"imei":5.5,"pos":"1,2"}"#, #"field "id (/imei)" must be a string or a whole number below 2^53, not the number 5.5"#),
        (#"{"imei":1e17,"pos":"1,2"}"#, #"field "id (/imei)" must be a string or a whole number below 2^53, not a number of 2^53 or more"#),
        (#"{"imei":9007199254740993,"pos":"1,2"}"#, #"field "id (/imei)" must be a string or a whole number below 2^53, not a number of 2^53 or more"#),
        (#"{"imei":true,"pos":"1,2"}"#, #"field "id (/imei)" must be a string or a whole number, not a boolean"#),
        (#"{"imei":"a","pos":"1,2","at":12}"#, #"field "ts (/at)" must be an RFC 3339 string, not a number"#),
        (#"not json"#, "payload is not valid JSON"),
    ])
    func rejections(payload: String, reason: String) throws {
        let mapping = try Self.mapping(["topic": "gps/#", "id": "/imei", "latlon": "/pos", "ts": "/at", "ts_unit": "rfc3339"])
        let result = Self.decode(mapping, payload, topic: "gps/x")
        guard case let .failure(rejection) = result else { Issue.record("accepted: \(result)"); return }
        #expect(rejection.description.hasPrefix(reason), "\(rejection)")
    }

    @Test func aMissingTopicLevelIsNamed() throws {
        let mapping = try Self.mapping(["topic": "t/#", "id": "topic:4", "lat": "/a", "lon": "/o"])
        #expect(Self.decode(mapping, #"{"a":1,"o":2}"#, topic: "t/x") == .failure(.badDeviceID("the topic t/x has no level 4 for the device id")))
        #expect(Self.decode(mapping, #"{"a":1,"o":2}"#, topic: "t/x/y/") == .failure(.badDeviceID("the device id is empty")))
    }

    @Test("entries that cannot be used say why", arguments: [
        (["topic": "a/b", "lat": "/a", "lon": "/o"], "id is required"),
        (["topic": "a/b", "id": "/i", "lat": "/a"], "needs lat and lon, or latlon alone"),
        (["topic": "a/b", "id": "/i", "lat": "/a", "lon": "/o", "latlon": "/p"], "needs lat and lon, or latlon alone"),
        (["topic": "a/b", "id": "topic:0", "lat": "/a", "lon": "/o"], "id topic:0: topic:N needs a level number from 1"),
        (["topic": "cn/+", "id": "topic:3", "lat": "/a", "lon": "/o"], "id topic:3: the topics of cn/+ have 2 levels"),
        (["topic": "a/b", "id": "imei", "lat": "/a", "lon": "/o"], "id imei is not a JSON Pointer"),
        (["topic": "a/b", "id": "/i", "lat": "/a", "lon": "/o", "ts_unit": "h"], "ts_unit h: expected one of s, ms, rfc3339"),
        (["topic": "a/b", "id": "/i", "lat": "/a", "lon": "/o", "spd_unit": "mph"], "spd_unit mph: expected one of m/s, km/h, knots"),
        (["topic": "a/b", "id": "/i", "lat": "/a", "lon": "/o", "alt": "/h"], "unknown key alt"),
        (["id": "/i", "lat": "/a", "lon": "/o"], "topic is required"),
    ])
    func badEntries(entry: [String: String], reason: String) {
        do {
            _ = try PositionMapping(entry: entry)
            Issue.record("accepted \(entry)")
        } catch {
            #expect(error.description.hasPrefix(reason), "\(error)")
        }
    }
}
