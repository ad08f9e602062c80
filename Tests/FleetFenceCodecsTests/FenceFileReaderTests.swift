import Foundation
import GeofenceEngine
import Testing
@testable import FleetFenceCodecs

/// The one reader of fences files, whose rules the service and the simulator share.
@Suite("Fences file reader")
struct FenceFileReaderTests {
    let mixed = Data("""
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "properties": {"id": "ok", "radius": 50}, "geometry": {"type": "Point", "coordinates": [8.6, 49.3]}},
          {"type": "Feature", "properties": {"id": "bad"}, "geometry": {"type": "Point", "coordinates": [8.6, 49.3]}},
          {"type": "Feature", "properties": {"radius": 5}, "geometry": {"type": "Point", "coordinates": [8.6, 49.3]}}
        ]}
        """.utf8)

    @Test func aBadFeatureIsAProblemAndTheRestIsKept() throws {
        let contents = try FenceFileReader.read(mixed, path: "f.geojson")
        #expect(contents.path == "f.geojson")
        #expect(contents.definitions.map(\.id) == ["ok"])
        #expect(contents.problems.count == 2)
        #expect(contents.problems.first?.hasPrefix(#"features[1] (id "bad"): "#) == true)
        #expect(contents.problems.last?.hasPrefix("features[2]: ") == true)
        // The bad feature's id is listed: a fence held under it stays as it was.
        #expect(contents.listedIDs == ["ok", "bad"])
    }

    @Test func aFileThatIsNoFeatureCollectionFailsAsAWhole() {
        let notJSON = #expect(throws: FenceFileError.self) { try FenceFileReader.read(Data("{ nope".utf8), path: "a") }
        #expect(notJSON?.description == "fences file a: not valid JSON: unexpected character 'n' at byte 2 (expected a string key) (line 1, column 3)")
        let array = #expect(throws: FenceFileError.self) { try FenceFileReader.read(Data("[1, 2]".utf8), path: "b") }
        #expect(array?.reason == "the payload must be a JSON object, not an array")
        let missing = #expect(throws: FenceFileError.self) { try FenceFileReader.read(path: "/nonexistent/fences.geojson") }
        #expect(missing?.reason.hasPrefix("cannot read: ") == true)
        #expect(missing?.path == "/nonexistent/fences.geojson")
    }

    /// docs/topics-and-payloads.md "Fences": a file saved with a byte order mark, or repeating a key, is refused whole, with the place.
    @Test func aByteOrderMarkOrARepeatedKeyFailsTheFile() {
        let marked = #expect(throws: FenceFileError.self) {
            try FenceFileReader.read(Data([0xEF, 0xBB, 0xBF]) + mixed, path: "m")
        }
        #expect(marked?.reason == "not valid JSON: byte order mark at byte 0 (JSON text must not start with U+FEFF) (line 1, column 1)")
        let text = "{\"type\": \"FeatureCollection\", \"features\": [\n {\"type\": \"Feature\", \"type\": \"Feature\"}]}"
        let repeated = #expect(throws: FenceFileError.self) { try FenceFileReader.read(Data(text.utf8), path: "r") }
        #expect(repeated?.reason == #"not valid JSON: duplicate key "type" at byte 65 (a key may appear once per object) (line 2, column 22)"#)
    }

    @Test func aSingleDefinitionOnlyWhenAllowed() throws {
        let single = Data(#"{"id": "x", "lat": 1, "lon": 2, "radius": 3}"#.utf8)
        #expect(throws: FenceFileError.self) { try FenceFileReader.read(single, path: "x.json") }
        let contents = try FenceFileReader.read(single, path: "x.json", allowingSingleDefinition: true)
        #expect(contents.definitions.first?.shape == .circle(center: Coordinate(lat: 1, lon: 2), radius: 3))
        #expect(contents.listedIDs == ["x"] && contents.problems.isEmpty)
        let neither = #expect(throws: FenceFileError.self) {
            try FenceFileReader.read(Data(#"{"id": "x"}"#.utf8), path: "y.json", allowingSingleDefinition: true)
        }
        #expect(neither?.reason == #"missing field "type" (nor a single fence: no shape: give lat, lon and radius for a circle, polygon, or a GeoJSON geometry)"#)
    }
}
