import Foundation
import GeofenceEngine
import Testing
@testable import FleetFenceCodecs

@Suite("Fence definitions in")
struct FenceDecoderTests {
    private func decode(_ text: String, topic: String? = nil) throws(FenceDecodingError) -> FenceDefinition {
        try FenceDecoder.decodeDefinition(Array(text.utf8), idFromTopic: topic)
    }

    private func error(_ text: String, topic: String? = nil) -> FenceDecodingError? {
        do {
            _ = try decode(text, topic: topic)
            return nil
        } catch {
            return error
        }
    }

    @Test func plainCircle() throws {
        let d = try decode(#"{"id":"wdf01","name":"SAP SE WDF01","description":"HQ","lat":49.2931,"lon":8.6413,"radius":200,"notify":["enter","exit","dwell"],"dwell_s":600}"#)
        #expect(d == FenceDefinition(
            id: "wdf01", name: "SAP SE WDF01", description: "HQ",
            shape: .circle(center: Coordinate(lat: 49.2931, lon: 8.6413), radius: 200),
            notify: [.enter, .exit, .dwell], dwellSeconds: 600
        ))
    }

    @Test func plainPolygonIsLonLat() throws {
        let d = try decode(#"{"id":"yard","polygon":[[8.0,49.0],[8.1,49.0],[8.1,49.1],[8.0,49.0]]}"#)
        #expect(d.shape == .polygon([
            Coordinate(lat: 49, lon: 8), Coordinate(lat: 49, lon: 8.1), Coordinate(lat: 49.1, lon: 8.1), Coordinate(lat: 49, lon: 8),
        ]))
        #expect(d.notify == nil && d.name == nil && d.dwellSeconds == nil)
        // A third number (altitude) is allowed and ignored.
        #expect(try decode(#"{"id":"y","polygon":[[8,49,100],[8.1,49,0],[8.1,49.1,5]]}"#).shape
            == .polygon([Coordinate(lat: 49, lon: 8), Coordinate(lat: 49, lon: 8.1), Coordinate(lat: 49.1, lon: 8.1)]))
    }

    @Test func idComesFromTheTopicOrMustMatchIt() throws {
        #expect(try decode(#"{"lat":1,"lon":2,"radius":50}"#, topic: "depot").id == "depot")
        #expect(try decode(#"{"id":"depot","lat":1,"lon":2,"radius":50}"#, topic: "depot").id == "depot")
        #expect(error(#"{"id":"other","lat":1,"lon":2,"radius":50}"#, topic: "depot") == .idMismatch(topic: "depot", payload: "other"))
        // The same name in another Unicode spelling (NFC against NFD) is another id: by bytes.
        #expect(error(#"{"id":"B\u00fcs","lat":1,"lon":2,"radius":50}"#, topic: "Bu\u{0308}s") != nil)
        #expect(error(#"{"lat":1,"lon":2,"radius":50}"#) == .missingField("id"))
        #expect(error(#"{"id":"a/b","lat":1,"lon":2,"radius":50}"#) == .invalidID("a/b"))
        #expect(error(#"{"id":"a+","lat":1,"lon":2,"radius":50}"#) == .invalidID("a+"))
        // Nothing libmosquitto refuses in a topic: it would publish no alert at the fence.
        func id(_ scalar: UInt32) -> String { "a" + String(Unicode.Scalar(scalar)!) + "b" }
        let refused = [
            (#"a\tb"#, id(0x09)), (#"a\u007fb"#, id(0x7F)), (#"a\u0085b"#, id(0x85)), (#"a\ufdd0b"#, id(0xFDD0)),
            (#"a\uffffb"#, id(0xFFFF)),
        ]
        for (json, id) in refused {
            #expect(error(#"{"id":""# + json + #"","lat":1,"lon":2,"radius":50}"#) == .invalidID(id), "\(json)")
        }
        #expect(error(#"{"id":"caf\u00e9 \u00a0x","lat":1,"lon":2,"radius":50}"#) == nil, "letters and spaces are fine")
        #expect(FenceDecodingError.invalidID("a\tb").description.hasPrefix(#"fence id "a\#tb" contains U+0009"#))
        #expect(error(#"{"id":5,"lat":1,"lon":2,"radius":50}"#) == .wrongType(field: "id", expected: "a string", got: "a number"))
    }

    @Test func nullCountsAsAbsent() throws {
        let d = try decode(#"{"id":"a","name":null,"description":null,"lat":1,"lon":2,"radius":50,"polygon":null,"notify":null,"dwell_s":null}"#)
        #expect(d.name == nil && d.notify == nil && d.dwellSeconds == nil)
    }

    @Test func shapeErrors() {
        #expect(error(#"{"id":"a","lat":1,"lon":2,"radius":5,"polygon":[[1,2],[3,4],[5,6]]}"#) == .bothShapes)
        #expect(error(#"{"id":"a","radius":5,"polygon":[[1,2],[3,4],[5,6]]}"#) == .bothShapes)
        #expect(error(#"{"id":"a","name":"x"}"#) == .noShape)
        #expect(error(#"{"id":"a","lat":1,"lon":2}"#) == .missingField("radius"))
        #expect(error(#"{"id":"a","lon":2,"radius":5}"#) == .missingField("lat"))
        #expect(error(#"{"id":"a","lat":1,"lon":2,"radius":"200"}"#) == .wrongType(field: "radius", expected: "a number", got: "a string"))
        #expect(error(#"{"id":"a","lat":true,"lon":2,"radius":200}"#) == .wrongType(field: "lat", expected: "a number", got: "a boolean"))
        #expect(error(#"{"id":"a","polygon":{"a":1}}"#) == .wrongType(field: "polygon", expected: "an array of [lon, lat] positions", got: "an object"))
        #expect(error(#"{"id":"a","polygon":[[1,2],[3]]}"#) == .badPosition(field: "polygon[1]", detail: "it has 1 element"))
        #expect(error(#"{"id":"a","polygon":[[1,2],"x"]}"#) == .badPosition(field: "polygon[1]", detail: "it is a string"))
        #expect(error(#"{"id":"a","polygon":[[1,2],[3,false]]}"#) == .badPosition(field: "polygon[1]", detail: "element 1 is a boolean"))
    }

    @Test func geometryIsLeftToTheEngine() throws {
        // Out of range, zero radius, two points: decoded faithfully, for FenceError to reject.
        #expect(try decode(#"{"id":"a","lat":100,"lon":2,"radius":0}"#).shape == .circle(center: Coordinate(lat: 100, lon: 2), radius: 0))
        #expect(try decode(#"{"id":"a","polygon":[[1,2],[3,4]]}"#).shape == .polygon([Coordinate(lat: 2, lon: 1), Coordinate(lat: 4, lon: 3)]))
        #expect(try decode(#"{"id":"a","lat":1,"lon":2,"radius":5,"dwell_s":-1}"#).dwellSeconds == -1)
    }

    /// docs/topics-and-payloads.md "Fences": `{"radius": 50, "radius": 5000}` would be one fence to us and another to a reader that
    /// keeps the first member; such a definition is refused, as is a leading byte order mark.
    @Test func repeatedKeysAndByteOrderMarkAreRefused() {
        #expect(error(#"{"id":"a","lat":1,"lon":2,"radius":50,"radius":5000}"#)
            == .notJSON(detail: #"duplicate key "radius" at byte 38 (a key may appear once per object)"#))
        #expect(error(#"{"type":"Feature","properties":{"id":"a","radius":5,"id":"b"},"geometry":{"type":"Point","coordinates":[8,49]}}"#)
            == .notJSON(detail: #"duplicate key "id" at byte 52 (a key may appear once per object)"#))
        #expect(throws: FenceDecodingError.notJSON(detail: "byte order mark at byte 0 (JSON text must not start with U+FEFF)")) {
            try FenceDecoder.decodeDefinition([0xEF, 0xBB, 0xBF] + Array(#"{"id":"a","lat":1,"lon":2,"radius":50}"#.utf8), idFromTopic: nil)
        }
    }

    @Test func numbersThatAreNotFiniteAreRejected() {
        guard case let .notJSON(detail)? = error(#"{"id":"a","lat":1,"lon":2,"radius":1e999}"#) else {
            Issue.record("1e999 accepted")
            return
        }
        #expect(detail == "number out of range at byte 35 (too large for a Double)")
        #expect(FenceDecodingError.notJSON(detail: detail).description.hasPrefix("fence definition is not valid JSON"))
        #expect(error(#"{"id":"a","lat":NaN,"lon":2,"radius":1}"#).map { if case .notJSON = $0 { true } else { false } } == true)
    }

    @Test func notify() throws {
        #expect(try decode(#"{"id":"a","lat":1,"lon":2,"radius":5,"notify":[]}"#).notify == [])
        #expect(try decode(#"{"id":"a","lat":1,"lon":2,"radius":5,"notify":["exit","exit"]}"#).notify == [.exit])
        #expect(error(#"{"id":"a","lat":1,"lon":2,"radius":5,"notify":["enter","leave"]}"#) == .invalidNotify("leave"))
        #expect(error(#"{"id":"a","lat":1,"lon":2,"radius":5,"notify":"enter"}"#) == .wrongType(field: "notify", expected: "an array of strings", got: "a string"))
        #expect(error(#"{"id":"a","lat":1,"lon":2,"radius":5,"notify":[1]}"#) == .wrongType(field: "notify[0]", expected: "a string", got: "a number"))
    }

    @Test func geoJSONPointFeature() throws {
        let d = try decode(#"{"type":"Feature","geometry":{"type":"Point","coordinates":[8.6413,49.2931]},"properties":{"id":"wdf01","name":"SAP SE WDF01","radius":200,"notify":["enter"],"stroke":"red"}}"#)
        #expect(d == FenceDefinition(id: "wdf01", name: "SAP SE WDF01", shape: .circle(center: Coordinate(lat: 49.2931, lon: 8.6413), radius: 200), notify: [.enter]))
    }

    @Test func geoJSONPolygonFeatureReadsItsHoles() throws {
        let d = try decode(#"{"type":"Feature","id":"yard","geometry":{"type":"Polygon","coordinates":[[[8,49],[8.1,49],[8.1,49.1],[8,49]],[[8.01,49.01],[8.02,49.01],[8.02,49.02],[8.01,49.01]]]},"properties":{"dwell_s":300}}"#, topic: "yard")
        #expect(d.id == "yard" && d.dwellSeconds == 300)
        #expect(d.shape == .polygon(
            [Coordinate(lat: 49, lon: 8), Coordinate(lat: 49, lon: 8.1), Coordinate(lat: 49.1, lon: 8.1), Coordinate(lat: 49, lon: 8)],
            holes: [[Coordinate(lat: 49.01, lon: 8.01), Coordinate(lat: 49.01, lon: 8.02), Coordinate(lat: 49.02, lon: 8.02), Coordinate(lat: 49.01, lon: 8.01)]]))
    }

    @Test func geoJSONFeatureErrors() {
        let point = #""geometry":{"type":"Point","coordinates":[8,49]}"#
        #expect(error(#"{"type":"Feature",\#(point),"properties":{"id":"a"}}"#) == .missingField("properties.radius"))
        #expect(error(#"{"type":"Feature",\#(point),"properties":{"id":"a","radius":"x"}}"#) == .wrongType(field: "properties.radius", expected: "a number", got: "a string"))
        #expect(error(#"{"type":"Feature",\#(point),"properties":{"id":"a","radius":5,"lat":1}}"#) == .shapeInProperties("lat"))
        #expect(error(#"{"type":"Feature","properties":{"id":"a","radius":5}}"#) == .missingField("geometry"))
        #expect(error(#"{"type":"Feature","geometry":null,"properties":{"id":"a","radius":5}}"#) == .missingField("geometry"))
        #expect(error(#"{"type":"Feature","geometry":[],"properties":{"id":"a","radius":5}}"#) == .notAnObject(field: "geometry", found: "an array"))
        #expect(error(#"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[8,49],[9,50]]},"properties":{"id":"a"}}"#) == .corridorWithoutBuffer(field: "properties.buffer_m"))
        #expect(error(#"{"type":"Feature","geometry":{"type":"MultiPoint","coordinates":[[8,49],[9,50]]},"properties":{"id":"a"}}"#) == .unsupportedGeometry("MultiPoint"))
        #expect(error(#"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[8,49],[9,50],[9,49]]]},"properties":{"id":"a","radius":5}}"#) == .keyNotForShape(key: "radius", shape: "Polygon"))
        #expect(error(#"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[]},"properties":{"id":"a"}}"#) == .wrongType(field: "geometry.coordinates", expected: "an array of rings", got: "an empty array"))
        #expect(error(#"{"type":"Feature","geometry":{"type":"Point"},"properties":{"id":"a","radius":5}}"#) == .missingField("geometry.coordinates"))
        #expect(error(#"{"type":"Feature","id":"b",\#(point),"properties":{"id":"a","radius":5}}"#) == .conflictingIDs(feature: "b", properties: "a"))
        #expect(error(#"{"type":"Feature",\#(point),"properties":[1]}"#) == .notAnObject(field: "properties", found: "an array"))
        #expect(error(#"{"type":"FeatureCollection","features":[]}"#) == .unsupportedType("FeatureCollection"))
        #expect(error(#"{"type":"Point","coordinates":[8,49]}"#) == .unsupportedType("Point"))
        #expect(error("[1]") == .notAnObject(field: "the payload", found: "an array"))
        #expect(error("") == .notJSON(detail: "unexpected end of input at byte 0 (expected a value)"))
        // RFC 8259, not JSONSerialization's leniency: a trailing comma is an error.
        #expect(error(#"{"id":"a","lat":1,"lon":2,"radius":5,}"#) == .notJSON(detail: "trailing comma at byte 36 (not allowed in JSON)"))
    }

    @Test func numericFeatureIDs() throws {
        #expect(try decode(#"{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[8,49]},"properties":{"radius":5}}"#).id == "7")
        // A broken feature still names its numeric id, so that a reload keeps the fence it had.
        let file = #"{"type":"FeatureCollection","features":[{"type":"Feature","id":42,"geometry":{"type":"Point","coordinates":[8,49]},"properties":{}}]}"#
        #expect(try FenceDecoder.decodeCollection(Data(file.utf8))
            == [.failure(FenceFeatureError(index: 0, id: "42", error: .missingField("properties.radius")))])
    }

    @Test func tooLarge() {
        let big = [UInt8](repeating: UInt8(ascii: " "), count: FenceDecoder.maxDefinitionBytes + 1)
        #expect(throws: FenceDecodingError.tooLarge(bytes: FenceDecoder.maxDefinitionBytes + 1)) {
            try FenceDecoder.decodeDefinition(big, idFromTopic: "a")
        }
    }

    @Test func dataOverload() throws {
        let data = Data(#"{"id":"a","lat":1,"lon":2,"radius":5}"#.utf8)
        #expect(try FenceDecoder.decodeDefinition(data, idFromTopic: nil).id == "a")
    }

    @Test func collectionKeepsGoodFeaturesAndReportsBadOnes() throws {
        let file = #"""
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [8.6413, 49.2931]},
           "properties": {"id": "wdf01", "name": "SAP SE WDF01", "radius": 200}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [8.6, 49.2]}, "properties": {"id": "bad"}},
          {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[8,49],[8.1,49],[8.1,49.1]]]},
           "properties": {"id": "yard"}},
          42,
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {"id": "wdf01", "radius": 5}},
          {"geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {"id": "typeless", "radius": 5}},
          {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {"radius": 5}}
        ]}
        """#
        let results = try FenceDecoder.decodeCollection(Data(file.utf8))
        #expect(results.count == 7)
        #expect(try results[0].get().id == "wdf01")
        #expect(try results[2].get().id == "yard")
        #expect(results[1] == .failure(FenceFeatureError(index: 1, id: "bad", error: .missingField("properties.radius"))))
        #expect(results[3] == .failure(FenceFeatureError(index: 3, id: nil, error: .notAnObject(field: "features[3]", found: "a number"))))
        #expect(results[4] == .failure(FenceFeatureError(index: 4, id: "wdf01", error: .duplicateID("wdf01"))))
        #expect(results[5] == .failure(FenceFeatureError(index: 5, id: "typeless", error: .missingField("type"))))
        #expect(results[6] == .failure(FenceFeatureError(index: 6, id: nil, error: .missingField("id"))))
        guard case let .failure(e) = results[1] else { return }
        #expect(e.description == #"features[1] (id "bad"): missing field "properties.radius""#)
    }

    /// Features are decoded in chunks on every core: a repeated id is still the later feature's
    /// error, across chunks too, and the results keep the file's order.
    @Test func aLargeCollectionKeepsItsOrderAndFindsRepeatsAcrossChunks() throws {
        let ids = (0..<5_000).map { "f\($0)" } + ["f10", "f4999"]
        let features = ids.map { #"{"type":"Feature","geometry":{"type":"Point","coordinates":[8,49]},"properties":{"id":"\#($0)","radius":50}}"# }
        let file = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
        let results = try FenceDecoder.decodeCollection(Data(file.utf8))
        #expect(results.count == ids.count)
        for index in 0..<5_000 { #expect(try results[index].get().id == ids[index]) }
        #expect(results[5_000] == .failure(FenceFeatureError(index: 5_000, id: "f10", error: .duplicateID("f10"))))
        #expect(results[5_001] == .failure(FenceFeatureError(index: 5_001, id: "f4999", error: .duplicateID("f4999"))))
    }

    @Test func aFileThatIsNotJSONNamesTheLineAndColumn() {
        let file = "{\"type\": \"FeatureCollection\",\n \"features\": [,]}"
        #expect(throws: FenceDecodingError.notJSON(detail: "unexpected character ',' at byte 44 (expected a value) (line 2, column 15)")) {
            try FenceDecoder.decodeCollection(Data(file.utf8))
        }
    }

    @Test func collectionErrorsThatFailTheWholeFile() {
        #expect(throws: FenceDecodingError.unsupportedType("Feature")) {
            try FenceDecoder.decodeCollection(Data(#"{"type":"Feature"}"#.utf8))
        }
        #expect(throws: FenceDecodingError.missingField("features")) {
            try FenceDecoder.decodeCollection(Data(#"{"type":"FeatureCollection"}"#.utf8))
        }
        #expect(throws: FenceDecodingError.wrongType(field: "features", expected: "an array", got: "an object")) {
            try FenceDecoder.decodeCollection(Data(#"{"type":"FeatureCollection","features":{}}"#.utf8))
        }
    }

    @Test func registryPayloadDecodesBackToTheSameFence() throws {
        let original = FenceDefinition(
            id: "wdf01", name: "SAP SE WDF01", description: "Walldorf \"HQ\"",
            shape: .circle(center: Coordinate(lat: 49.2931, lon: 8.6413), radius: 200), notify: [.enter, .dwell], dwellSeconds: 600
        )
        let bytes = FenceRegistryPayload.encode(definition: original, effectiveRadius: nil, requestedRadius: nil, clamped: false)
        #expect(try FenceDecoder.decodeDefinition(bytes, idFromTopic: "wdf01") == original)
        let polygon = FenceDefinition(id: "p", shape: .polygon([Coordinate(lat: 1, lon: 2), Coordinate(lat: 3, lon: 4), Coordinate(lat: 5, lon: 7)]))
        var expected = polygon
        expected.notify = polygon.effectiveNotify
        #expect(try FenceDecoder.decodeDefinition(
            FenceRegistryPayload.encode(definition: polygon, effectiveRadius: nil, requestedRadius: nil, clamped: false), idFromTopic: nil
        ) == expected)
    }

    @Test func descriptions() {
        #expect(FenceDecodingError.bothShapes.description == "give one shape: a circle (lat, lon, radius), a polygon or a geometry")
        #expect(FenceDecodingError.idMismatch(topic: "a", payload: "b").description == #"id "b" differs from the fence id "a" its topic or path names"#)
        #expect(FenceDecodingError.invalidNotify("leave").description == #"notify value "leave" is not one of enter, exit, dwell"#)
    }
}
