import FleetFenceCodecs
import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

@Suite("Alerts in and out")
struct AlertDecodingTests {
    @Test func decodesTheContractsAlert() throws {
        let payload = Array("""
            {"event": "exit", "device": "truck-7", "fence": "wdf01", "name": "SAP SE WDF01",
             "at": "2026-11-22T10:00:05.500Z", "confirmed_at": "2026-11-22T10:00:30.000Z",
             "lat": 49.2931, "lon": 8.6413, "radius_m": 200, "seq": 42, "duration_s": 255.5}
            """.utf8)
        let alert = try ReceivedAlert.decode(payload, received: 12)
        #expect(alert.event == .exit)
        #expect(alert.device == "truck-7")
        #expect(alert.confirmedAt.map { $0 - alert.at } == 24.5)
        #expect(alert.seq == 42)
        #expect(alert.radius == 200)
        #expect(alert.received == 12)
        #expect(AlertLine.format(alert) == "10:00:30 truck-7 EXIT  wdf01 (SAP SE WDF01) crossed 10:00:05 after 4m16s inside")
    }

    @Test func formatsEnterAndDwell() throws {
        let enter = try ReceivedAlert.decode(Array("""
            {"event":"enter","device":"truck-3","fence":"wdf01","name":"SAP SE WDF01","at":"2026-11-22T10:00:05.000Z","confirmed_at":"2026-11-22T10:00:30.000Z","seq":1}
            """.utf8))
        #expect(AlertLine.format(enter) == "10:00:30 truck-3 ENTER wdf01 (SAP SE WDF01) crossed 10:00:05")
        let dwell = try ReceivedAlert.decode(Array("""
            {"event":"dwell","device":"truck-9","fence":"wdf-depot","at":1795600000,"confirmed_at":1795600061.2,"dwell_s":61.2}
            """.utf8))
        #expect(AlertLine.format(dwell).hasSuffix("DWELL wdf-depot since \(AlertLine.clock(1_795_600_000)), 61 s inside"))
    }

    @Test func rejectsWhatIsNotAnAlert() {
        #expect(throws: (any Error).self) { try ReceivedAlert.decode(Array("online".utf8)) }
        #expect(throws: (any Error).self) {
            try ReceivedAlert.decode(Array(#"{"event":"enter","device":"a","fence":"b","at":"noon","confirmed_at":"noon"}"#.utf8))
        }
        #expect(throws: (any Error).self) {
            try ReceivedAlert.decode(Array(#"{"event":"teleport","device":"a","fence":"b","at":1,"confirmed_at":2}"#.utf8))
        }
    }
}

@Suite("Fence file")
struct FenceFileTests {
    @Test func readsFeaturesAndPlainDefinitions() throws {
        let collection = try FenceFile.load(data: Data("""
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"id": "c", "radius": 50, "notify": ["enter"], "dwell_s": 30},
               "geometry": {"type": "Point", "coordinates": [8.6, 49.3]}},
              {"type": "Feature", "id": "p", "properties": {"name": "P"},
               "geometry": {"type": "Polygon", "coordinates": [[[8.6, 49.3], [8.61, 49.3], [8.61, 49.31], [8.6, 49.3]]]}}
            ]}
            """.utf8), source: "f.geojson")
        #expect(collection.map(\.id) == ["c", "p"])
        #expect(collection[0].shape == .circle(center: Coordinate(lat: 49.3, lon: 8.6), radius: 50))
        #expect(collection[0].notify == [.enter])
        #expect(collection[0].dwellSeconds == 30)
        guard case let .polygon(ring, _) = collection[1].shape else { Issue.record("not a polygon"); return }
        #expect(ring.first == Coordinate(lat: 49.3, lon: 8.6))
        #expect(collection[1].name == "P")

        let single = try FenceFile.load(data: Data(#"{"id": "x", "lat": 1, "lon": 2, "radius": 3}"#.utf8), source: "x.json")
        #expect(single.first?.shape == .circle(center: Coordinate(lat: 1, lon: 2), radius: 3))
    }

    @Test func namesTheBadFence() throws {
        let file = Data("""
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"id": "ok", "radius": 5}, "geometry": {"type": "Point", "coordinates": [8.6, 49.3]}},
              {"type": "Feature", "properties": {"id": "bad"}, "geometry": {"type": "Point", "coordinates": [8.6, 49.3]}}
            ]}
            """.utf8)
        let error = #expect(throws: FenceFile.LoadError.self) { try FenceFile.load(data: file, source: "x.geojson") }
        #expect(error?.description.hasPrefix("x.geojson: ") == true)
        #expect(error?.description.contains("bad") == true)
        // The service's reader skips the same feature for the same reason.
        #expect(error?.message == (try FenceFileReader.read(file, path: "x.geojson").problems.first))
        #expect(throws: FenceFile.LoadError.self) { try FenceFile.load(data: Data("[1, 2]".utf8), source: "y.json") }
    }
}
