import Foundation
import GeofenceEngine
import Testing
@testable import FleetFenceCodecs

/// docs/topics-and-payloads.md "Fences": the keys of fleet rules (`geometry`, `buffer_m`, `devices`, `speed_limit_kmh`,
/// `expires_at`), in plain `set` payloads and in GeoJSON Features, and what is refused before the engine sees
/// it.
@Suite("Fence definitions in: shapes and fleet rules")
struct FenceRuleKeysDecodingTests {
    private func decode(_ text: String, topic: String? = nil) throws(FenceDecodingError) -> FenceDefinition {
        try FenceDecoder.decodeDefinition(Array(text.utf8), idFromTopic: topic)
    }

    private func error(_ text: String) -> FenceDecodingError? {
        do {
            _ = try decode(text)
            return nil
        } catch {
            return error
        }
    }

    private func c(_ lon: Double, _ lat: Double) -> Coordinate { Coordinate(lat: lat, lon: lon) }

    // MARK: Geometries

    @Test func plainGeometryPolygonWithAHole() throws {
        let d = try decode(#"{"id":"lot","geometry":{"type":"Polygon","coordinates":[[[8,49],[8.1,49],[8.1,49.1]],[[8.05,49.01],[8.06,49.01],[8.06,49.02]]]}}"#)
        #expect(d.shape == .polygon([c(8, 49), c(8.1, 49), c(8.1, 49.1)], holes: [[c(8.05, 49.01), c(8.06, 49.01), c(8.06, 49.02)]]))
    }

    @Test func multiPolygonInAPlainPayloadAndInAFeature() throws {
        let coordinates = #"[[[[8,49],[8.1,49],[8.1,49.1]]],[[[9,49],[9.1,49],[9.1,49.1]],[[9.05,49.01],[9.06,49.01],[9.06,49.02]]]]"#
        let expected = FenceShape.multiPolygon([
            PolygonRings(outer: [c(8, 49), c(8.1, 49), c(8.1, 49.1)]),
            PolygonRings(outer: [c(9, 49), c(9.1, 49), c(9.1, 49.1)], holes: [[c(9.05, 49.01), c(9.06, 49.01), c(9.06, 49.02)]]),
        ])
        #expect(try decode(#"{"id":"m","geometry":{"type":"MultiPolygon","coordinates":\#(coordinates)}}"#).shape == expected)
        #expect(try decode(#"{"type":"Feature","geometry":{"type":"MultiPolygon","coordinates":\#(coordinates)},"properties":{"id":"m"}}"#).shape == expected)
        // An empty one decodes, for the engine to refuse with its reason.
        #expect(try decode(#"{"id":"m","geometry":{"type":"MultiPolygon","coordinates":[]}}"#).shape == .multiPolygon([]))
        #expect(error(#"{"id":"m","geometry":{"type":"MultiPolygon","coordinates":[[]]}}"#)
            == .wrongType(field: "geometry.coordinates[0]", expected: "an array of rings", got: "an empty array"))
        #expect(error(#"{"id":"m","geometry":{"type":"MultiPolygon","coordinates":[[[[8,49],"x"]]]}}"#)
            == .badPosition(field: "geometry.coordinates[0][0][1]", detail: "it is a string"))
    }

    @Test func aLineStringIsACorridorWithItsBuffer() throws {
        let d = try decode(#"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[8,49],[8.1,49.05]]},"properties":{"id":"b3","buffer_m":40}}"#)
        #expect(d.shape == .corridor(line: [c(8, 49), c(8.1, 49.05)], bufferMeters: 40))
        #expect(try decode(#"{"id":"b3","geometry":{"type":"LineString","coordinates":[[8,49],[8.1,49.05]]},"buffer_m":40}"#).shape == d.shape)
    }

    @Test func aCorridorWithoutBufferIsRefusedWithItsReason() throws {
        let e = try #require(error(#"{"id":"b3","geometry":{"type":"LineString","coordinates":[[8,49],[8.1,49.05]]}}"#))
        #expect(e == .corridorWithoutBuffer(field: "buffer_m"))
        #expect(e.description == "a LineString is a corridor and needs buffer_m, its half-width in metres")
    }

    @Test func sizesThatDoNotBelongToTheShapeAreRefused() {
        #expect(error(#"{"id":"a","geometry":{"type":"LineString","coordinates":[[8,49],[9,49]]},"buffer_m":5,"radius":5}"#)
            == .keyNotForShape(key: "radius", shape: "LineString"))
        #expect(error(#"{"id":"a","geometry":{"type":"Point","coordinates":[8,49]},"radius":5,"buffer_m":5}"#)
            == .keyNotForShape(key: "buffer_m", shape: "Point"))
        #expect(error(#"{"id":"a","lat":49,"lon":8,"radius":5,"buffer_m":5}"#) == .keyNotForShape(key: "buffer_m", shape: "circle"))
        #expect(error(#"{"id":"a","polygon":[[8,49],[9,49],[9,50]],"buffer_m":5}"#) == .keyNotForShape(key: "buffer_m", shape: "polygon"))
        #expect(error(#"{"id":"a","geometry":{"type":"MultiPolygon","coordinates":[]},"buffer_m":5}"#)
            == .keyNotForShape(key: "buffer_m", shape: "MultiPolygon"))
    }

    @Test func oneShapeOnly() throws {
        let point = #""geometry":{"type":"Point","coordinates":[8,49]}"#
        #expect(error(#"{"id":"a",\#(point),"lat":49,"lon":8,"radius":5}"#) == .bothShapes)
        #expect(error(#"{"id":"a",\#(point),"polygon":[[8,49],[9,49],[9,50]],"radius":5}"#) == .bothShapes)
        #expect(error(#"{"type":"Feature",\#(point),"properties":{"id":"a","radius":5,"geometry":{}}}"#) == .shapeInProperties("geometry"))
        #expect(try decode(#"{"id":"a",\#(point),"radius":5}"#).shape == .circle(center: c(8, 49), radius: 5))
    }

    // MARK: Fleet rules

    @Test func devicesSpeedLimitAndExpiry() throws {
        let d = try decode(#"{"id":"z","lat":49,"lon":8,"radius":100,"devices":["truck-*","van-??"],"speed_limit_kmh":30,"expires_at":"2026-12-01T06:00:00+01:00"}"#)
        #expect(d.devices == ["truck-*", "van-??"])
        #expect(d.speedLimitKmh == 30)
        #expect(d.expiresAt == RFC3339.parse("2026-12-01T05:00:00Z"))
        let feature = try decode(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[8,49]},"properties":{"id":"z","radius":100,"devices":["truck-*","van-??"],"speed_limit_kmh":30,"expires_at":"2026-12-01T05:00:00Z"}}"#)
        #expect(feature == d)
    }

    @Test func absentKeysMeanEveryDeviceNoLimitNoExpiry() throws {
        let d = try decode(#"{"id":"z","lat":49,"lon":8,"radius":100,"devices":null,"speed_limit_kmh":null,"expires_at":null}"#)
        #expect(d.devices == ["*"] && d.speedLimitKmh == nil && d.expiresAt == nil)
    }

    @Test func anExpiryIsReadToTheMillisecondItIsWrittenWith() throws {
        let d = try decode(#"{"id":"z","lat":49,"lon":8,"radius":100,"expires_at":"2026-12-01T05:00:00.123456789Z"}"#)
        #expect(d.expiresAt == RFC3339.parse("2026-12-01T05:00:00.123Z"))
    }

    @Test func badKeysAreRefusedWithTheirReason() {
        let base = #""id":"z","lat":49,"lon":8,"radius":100"#
        #expect(error(#"{\#(base),"expires_at":"tomorrow"}"#) == .invalidTime(field: "expires_at", value: "tomorrow"))
        #expect(error(#"{\#(base),"expires_at":"2026-02-30T00:00:00Z"}"#) == .invalidTime(field: "expires_at", value: "2026-02-30T00:00:00Z"))
        #expect(error(#"{\#(base),"expires_at":1795600000}"#) == .wrongType(field: "expires_at", expected: "an RFC 3339 time string", got: "a number"))
        #expect(error(#"{\#(base),"devices":"truck-*"}"#) == .wrongType(field: "devices", expected: "an array of strings", got: "a string"))
        #expect(error(#"{\#(base),"devices":["a",7]}"#) == .wrongType(field: "devices[1]", expected: "a string", got: "a number"))
        #expect(error(#"{\#(base),"speed_limit_kmh":"50"}"#) == .wrongType(field: "speed_limit_kmh", expected: "a number", got: "a string"))
        #expect(error(#"{\#(base),"notify":["speeding"]}"#) == .invalidNotify("speeding"))
        #expect(error(#"{\#(base),"notify":["stop_visited"]}"#) == .invalidNotify("stop_visited"))
        let feature = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[8,49]},"properties":{"id":"z","radius":5,"expires_at":"soon"}}"#
        #expect(error(feature) == .invalidTime(field: "properties.expires_at", value: "soon"))
    }

    /// What the decoder lets through, the engine refuses: each with its reason, nothing held.
    @Test func badValuesReachTheEngineAndAreRefusedThere() throws {
        let cases: [(String, FenceError)] = [
            (#"{"id":"z","lat":49,"lon":8,"radius":100,"speed_limit_kmh":-5}"#, .invalidSpeedLimit(-5)),
            (#"{"id":"z","lat":49,"lon":8,"radius":100,"speed_limit_kmh":0}"#, .invalidSpeedLimit(0)),
            (#"{"id":"z","lat":49,"lon":8,"radius":100,"devices":["\#(String(repeating: "x", count: 10_000))"]}"#,
             .invalidDevices(.patternTooLong(bytes: 10_000, limit: 256))),
            (#"{"id":"z","lat":49,"lon":8,"radius":100,"devices":[]}"#, .invalidDevices(.empty)),
            (#"{"id":"m","geometry":{"type":"MultiPolygon","coordinates":[]}}"#, .emptyMultiPolygon),
            (#"{"id":"b","geometry":{"type":"LineString","coordinates":[[8,49],[8.1,49]]},"buffer_m":-5}"#, .invalidBuffer(-5)),
            (#"{"id":"\#(String(repeating: "f", count: 257))","lat":49,"lon":8,"radius":100}"#, .idTooLong(bytes: 257)),
        ]
        for (payload, expected) in cases {
            let definition = try decode(payload)
            #expect(throws: expected) { try Fence(definition: definition, settings: GeofenceSettings()) }
        }
    }

    @Test func duplicateIDsInAFileAreJudgedByBytes() throws {
        let nfc = "Bus-M\u{00FC}ller", nfd = "Bus-Mu\u{0308}ller"
        let file = #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[8,49]},"properties":{"id":"\#(nfc)","radius":5}},{"type":"Feature","geometry":{"type":"Point","coordinates":[8,49]},"properties":{"id":"\#(nfd)","radius":5}},{"type":"Feature","geometry":{"type":"Point","coordinates":[8,49]},"properties":{"id":"\#(nfd)","radius":5}}]}"#
        let results = try FenceDecoder.decodeCollection(Data(file.utf8))
        #expect(try results[0].get().id.utf8.elementsEqual(nfc.utf8))
        #expect(try results[1].get().id.utf8.elementsEqual(nfd.utf8))
        #expect(results[2] == .failure(FenceFeatureError(index: 2, id: nfd, error: .duplicateID(nfd))))
    }
}
