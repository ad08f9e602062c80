import Testing
@testable import FleetFenceCodecs

@Suite("OsmAnd (Traccar Client)")
struct OsmAndDecoderTests {
    static func parameters(_ query: String) -> [(name: String, value: String)] {
        query.split(separator: "&").map { item in
            let parts = item.split(separator: "=", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    @Test func queryParameters() throws {
        let decoded = try OsmAndDecoder.decode(
            parameters: Self.parameters("id=phone-1&lat=49.29&lon=8.64&timestamp=1795600000&speed=2&bearing=90&accuracy=7&altitude=110&batt=80")
        ).get()
        #expect(decoded == ForeignPosition(
            device: "phone-1",
            position: DecodedPosition(lat: 49.29, lon: 8.64, timestamp: 1_795_600_000, accuracy: 7, speed: 2 * 1852.0 / 3600, heading: 90)))
    }

    @Test func deviceidAndTimestampForms() throws {
        let iso = try OsmAndDecoder.decode(parameters: Self.parameters("deviceid=p&lat=1&lon=2&timestamp=2026-11-25T09:46:40Z")).get()
        #expect(iso.device == "p" && iso.position.timestamp == 1_795_600_000)
        let millis = try OsmAndDecoder.decode(parameters: Self.parameters("id=p&lat=1&lon=2&timestamp=1795600000500")).get()
        #expect(millis.position.timestamp == 1_795_600_000.5)
        let none = try OsmAndDecoder.decode(parameters: Self.parameters("id=p&lat=1&lon=2")).get()
        #expect(none.position.timestamp == nil)
    }

    /// The ISO 8601 forms trackers and their platforms write, each the same instant
    /// (2026-11-25T09:46:40Z); what is none of them stays refused.
    @Test(arguments: [
        "2026-11-25T09:46:40Z", "2026-11-25 09:46:40", "2026-11-25T09:46:40", "2026-11-25t09:46:40z", "2026-11-25T10:46:40+01:00",
        "2026-11-25T10:46:40+0100", "2026-11-25T10:46:40+01", "2026-11-25T04:16:40-0530", "20261125T094640Z", "20261125T104640+0100",
        "2026-11-25T09:46:40,000Z", "2026-11-25 09:46:40.000",
    ])
    func isoTimes(text: String) throws {
        let decoded = try OsmAndDecoder.decode(parameters: [("id", "p"), ("lat", "1"), ("lon", "2"), ("timestamp", text)]).get()
        #expect(decoded.position.timestamp == 1_795_600_000, "\(text)")
    }

    @Test func isoTimesWithoutSecondsOrWithAFraction() throws {
        #expect(ISO8601Time.parse("2026-11-25T09:46Z") == 1_795_599_960)
        #expect(ISO8601Time.parse("2026-11-25T09:46:40,5Z") == 1_795_600_000.5)
        for bad in ["2026-11-25", "2026-11-25T09", "2026-11-25T09:46:40+1", "2026-11-25T09:46:40 Z", "2026-1125T094640Z",
                    "2026-11-25T09:46:40.Z", "yesterday", "2026-11-25T25:00:00Z", "2026-02-30T00:00:00Z"] {
            #expect(ISO8601Time.parse(bad) == nil, "\(bad)")
        }
    }

    /// URL templates (GPSLogger's "custom URL") leave a placeholder empty when the phone has no value.
    @Test func emptyMeasurementsAreUnknown() throws {
        let decoded = try OsmAndDecoder.decode(
            parameters: Self.parameters("id=p&lat=1&lon=2&timestamp=1795600000&speed=&bearing=&accuracy=")
        ).get()
        #expect(decoded.position == DecodedPosition(lat: 1, lon: 2, timestamp: 1_795_600_000, accuracy: nil, speed: nil, heading: nil))
        #expect(try OsmAndDecoder.decode(parameters: Self.parameters("id=p&lat=1&lon=2&heading=")).get().position.heading == nil)
        // What a position cannot be without stays required.
        #expect(OsmAndDecoder.decode(parameters: Self.parameters("id=p&lat=&lon=2")).isFailure)
        #expect(OsmAndDecoder.decode(parameters: Self.parameters("id=p&lat=1&lon=2&timestamp=")).isFailure)
    }

    @Test("bad parameters are rejected with a reason", arguments: [
        ("lat=1&lon=2", #"missing field "id""#),
        ("id=p&lon=2", #"missing field "lat""#),
        ("id=p&lat=north&lon=2", #"field "lat" must be a number or a string holding one, not the string "north""#),
        ("id=p&lat=95&lon=2", #"field "lat" is 95.0, must be within [-90, 90]"#),
        ("id=p&lat=1&lon=2&lat=3", #"field "lat" is given more than once"#),
        ("id=p&lat=1&lon=2&timestamp=soon", #"field "timestamp" is "soon", which is not a number or an ISO 8601 time"#),
        ("id=p&lat=1&lon=2&accuracy=-4", #"field "accuracy" is -4.0, must be >= 0 metres"#),
        ("id=a/b&lat=1&lon=2", "device id \"a/b\" contains /: it must be one topic level (no /, +, #, NUL or other control character)"),
        ("id=a+b&lat=1&lon=2", "device id \"a+b\" contains +: it must be one topic level (no /, +, #, NUL or other control character)"),
        ("id=p&lat=nan&lon=2", #"field "lat" must be a number or a string holding one, not the string "nan""#),
    ])
    func rejections(query: String, reason: String) {
        let result = OsmAndDecoder.decode(parameters: Self.parameters(query))
        guard case let .failure(rejection) = result else { Issue.record("accepted: \(result)"); return }
        #expect(rejection.description == reason)
    }

    @Test func jsonBodyOfTraccarClient9() throws {
        let body = Array(#"{"location":{"timestamp":"2026-11-25T09:46:40.250Z","coords":{"latitude":49.29,"longitude":8.64,"accuracy":5,"speed":3.5,"heading":180,"altitude":100},"is_moving":true,"odometer":0,"battery":{"level":0.5}},"device_id":"phone-2"}"#)
        let decoded = try OsmAndDecoder.decode(json: body).get()
        #expect(decoded == ForeignPosition(
            device: "phone-2",
            position: DecodedPosition(lat: 49.29, lon: 8.64, timestamp: 1_795_600_000.25, accuracy: 5, speed: 3.5, heading: 180)))
        let epoch = Array(#"{"location":{"timestamp":1795600000,"coords":{"latitude":1,"longitude":2,"speed":-1,"heading":-1}},"device_id":"p"}"#)
        let read = try OsmAndDecoder.decode(json: epoch).get()
        #expect(read.position.timestamp == 1_795_600_000 && read.position.speed == nil && read.position.heading == nil)
    }

    @Test func jsonBodyRejections() {
        #expect(OsmAndDecoder.decode(json: Array(#"{"location":{"coords":{}}}"#)) == .failure(.missingField("device_id")))
        #expect(OsmAndDecoder.decode(json: Array(#"{"device_id":"p"}"#)) == .failure(.missingField("location")))
        #expect(
            OsmAndDecoder.decode(json: Array(#"{"device_id":"p","location":{"coords":{"latitude":1,"longitude":200}}}"#))
                == .failure(.outOfRange(field: "location.coords.longitude", value: 200)))
        #expect(OsmAndDecoder.decode(json: Array("{")) .isFailure)
    }
}

extension Result {
    var isFailure: Bool {
        if case .failure = self { return true }
        return false
    }
}
