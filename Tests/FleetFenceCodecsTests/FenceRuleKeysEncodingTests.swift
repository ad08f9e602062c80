import Foundation
import GeofenceEngine
import Testing
@testable import FleetFenceCodecs
import SeededRandom

/// docs/topics-and-payloads.md "Fences": the journal's plain form, the retained registry entry and the GeoJSON Feature carry the
/// new shapes and keys, and each reads back to the definition (or the fence as held).
@Suite("Fence definitions out: shapes and fleet rules")
struct FenceRuleKeysEncodingTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
    private func c(_ lon: Double, _ lat: Double) -> Coordinate { Coordinate(lat: lat, lon: lon) }
    private func roundTrip(_ definition: FenceDefinition) throws -> FenceDefinition {
        try FenceDecoder.decodeDefinition(FenceDefinitionEncoding.encode(definition), idFromTopic: nil)
    }

    private var square: [Coordinate] { [c(8, 49), c(8.01, 49), c(8.01, 49.01), c(8, 49.01)] }
    private var hole: [Coordinate] { [c(8.004, 49.004), c(8.006, 49.004), c(8.006, 49.006)] }

    @Test func plainFormGolden() {
        let corridor = FenceDefinition(
            id: "b3", shape: .corridor(line: [c(8, 49), c(8.1, 49.05)], bufferMeters: 40), devices: ["truck-*"],
            speedLimitKmh: 30, expiresAt: RFC3339.parse("2026-12-01T05:00:00.250Z"))
        #expect(text(FenceDefinitionEncoding.encode(corridor))
            == #"{"id":"b3","geometry":{"type":"LineString","coordinates":[[8,49],[8.1,49.05]]},"buffer_m":40,"devices":["truck-*"],"speed_limit_kmh":30,"expires_at":"2026-12-01T05:00:00.250Z"}"#)
        let holed = FenceDefinition(id: "lot", shape: .polygon([c(8, 49), c(8.1, 49), c(8.1, 49.1)], holes: [[c(8.05, 49.01), c(8.06, 49.01), c(8.06, 49.02)]]))
        #expect(text(FenceDefinitionEncoding.encode(holed))
            == #"{"id":"lot","geometry":{"type":"Polygon","coordinates":[[[8,49],[8.1,49],[8.1,49.1]],[[8.05,49.01],[8.06,49.01],[8.06,49.02]]]}}"#)
    }

    @Test func everyShapeAndKeyRoundTrips() throws {
        let shapes: [FenceShape] = [
            .circle(center: c(8.6413, 49.2931), radius: 200),
            .polygon(square),
            .polygon(square, holes: [hole]),
            .multiPolygon([PolygonRings(outer: square, holes: [hole]), PolygonRings(outer: square.map { c($0.lon + 1, $0.lat) })]),
            .corridor(line: [c(8, 49), c(8.1, 49.05), c(8.2, 49)], bufferMeters: 12.5),
        ]
        for shape in shapes {
            let full = FenceDefinition(
                id: "f", name: "Zone", description: "d", shape: shape, notify: [.exit], dwellSeconds: 60, devices: ["truck-?", "van-*"],
                speedLimitKmh: 42.5, expiresAt: RFC3339.parse("2027-01-01T00:00:00.001Z"))
            #expect(try roundTrip(full) == full)
            let bare = FenceDefinition(id: "f", shape: shape)
            #expect(try roundTrip(bare) == bare)
        }
    }

    @Test func randomRulesRoundTrip() throws {
        var rng = SeededRandom(seed: 77)
        for n in 0..<300 {
            let devices = Bool.random(using: &rng) ? FenceDefinition.everyDevice : (0..<Int.random(in: 1...4, using: &rng)).map { "fleet-\($0)-\u{00FC}*" }
            let expiry: Double? = Bool.random(using: &rng) ? (Double.random(in: 1.7e9...1.9e9, using: &rng) * 1000).rounded() / 1000 : nil
            let d = FenceDefinition(
                id: "fence-\(n)", shape: .corridor(line: [c(8, 49), c(8 + .random(in: 0.001...1, using: &rng), 49)], bufferMeters: .random(in: 1...500, using: &rng)),
                devices: devices, speedLimitKmh: Bool.random(using: &rng) ? .random(in: 1...200, using: &rng) : nil,
                expiresAt: expiry.flatMap { RFC3339.parse(RFC3339.format($0)) })
            #expect(try roundTrip(d) == d)
        }
    }

    @Test func theRegistryShowsTheEffectiveBufferAndEveryKey() throws {
        let definition = FenceDefinition(id: "lane", shape: .corridor(line: [c(8, 49), c(8.1, 49)], bufferMeters: 5), speedLimitKmh: 20)
        let fence = try Fence(definition: definition, settings: GeofenceSettings())
        let bytes = FenceRegistryPayload.encode(fence)
        #expect(text(bytes)
            == #"{"id":"lane","geometry":{"type":"LineString","coordinates":[[8,49],[8.1,49]]},"buffer_m":20,"notify":["enter","exit"],"devices":["*"],"speed_limit_kmh":20,"clamped":true,"requested_buffer_m":5}"#)
        // Sent back to `set`, it is the fence as held.
        var held = definition
        held.shape = .corridor(line: [c(8, 49), c(8.1, 49)], bufferMeters: 20)
        held.notify = [.enter, .exit]
        #expect(try FenceDecoder.decodeDefinition(bytes, idFromTopic: "lane") == held)
    }

    @Test func theRegistryOfAPolygonWithHolesReadsBack() throws {
        let definition = FenceDefinition(id: "lot", shape: .polygon(square, holes: [hole]), devices: ["a*"], expiresAt: 1_800_000_000.5)
        let fence = try Fence(definition: definition, settings: GeofenceSettings())
        var held = definition
        held.notify = definition.effectiveNotify
        #expect(try FenceDecoder.decodeDefinition(FenceRegistryPayload.encode(fence), idFromTopic: nil) == held)
    }

    // MARK: GeoJSON Features

    @Test func aCircleIsAPointWithItsEffectiveRadius() throws {
        let fence = try Fence(
            definition: FenceDefinition(id: "gate", name: "Gate", shape: .circle(center: c(8.6, 49.3), radius: 5), devices: ["truck-*"]),
            settings: GeofenceSettings())
        let bytes = FenceFeatureEncoding.encode(fence)
        #expect(text(bytes)
            == #"{"type":"Feature","id":"gate","geometry":{"type":"Point","coordinates":[8.6,49.3]},"properties":{"id":"gate","name":"Gate","radius":20,"notify":["enter","exit"],"devices":["truck-*"],"clamped":true,"requested_radius":5}}"#)
        let back = try FenceDecoder.decodeDefinition(bytes, idFromTopic: nil)
        #expect(back.shape == .circle(center: c(8.6, 49.3), radius: 20) && back.devices == ["truck-*"] && back.name == "Gate")
    }

    @Test func polygonsAreClosedRingsAndMultiPolygonsStayWhole() throws {
        let holed = try Fence(definition: FenceDefinition(id: "lot", shape: .polygon(square, holes: [hole])), settings: GeofenceSettings())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(FenceFeatureEncoding.encode(holed))) as? [String: Any])
        let geometry = try #require(object["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Polygon")
        let rings = try #require(geometry["coordinates"] as? [[[Double]]])
        #expect(rings.count == 2 && rings.allSatisfy { $0.first == $0.last }, "RFC 7946 rings are closed")
        #expect(rings[0].count == square.count + 1)
        // Read back, the closed rings are the same polygon.
        let back = try Fence(definition: try FenceDecoder.decodeDefinition(FenceFeatureEncoding.encode(holed), idFromTopic: nil), settings: GeofenceSettings())
        for point in [c(8.005, 49.005), c(8.002, 49.002), c(8.02, 49.0)] {
            #expect(abs(back.signedDistance(to: point) - holed.signedDistance(to: point)) < 1e-9)
        }
        let multi = try Fence(
            definition: FenceDefinition(id: "m", shape: .multiPolygon([PolygonRings(outer: square), PolygonRings(outer: square.map { c($0.lon + 1, $0.lat) })])),
            settings: GeofenceSettings())
        let multiObject = try #require(try JSONSerialization.jsonObject(with: Data(FenceFeatureEncoding.encode(multi))) as? [String: Any])
        #expect((multiObject["geometry"] as? [String: Any])?["type"] as? String == "MultiPolygon")
    }

    @Test func aCorridorIsALineStringWithItsEffectiveBuffer() throws {
        let fence = try Fence(
            definition: FenceDefinition(id: "b3", shape: .corridor(line: [c(8, 49), c(8.1, 49)], bufferMeters: 250_000), expiresAt: 1_800_000_000),
            settings: GeofenceSettings())
        #expect(text(FenceFeatureEncoding.encode(fence))
            == #"{"type":"Feature","id":"b3","geometry":{"type":"LineString","coordinates":[[8,49],[8.1,49]]},"properties":{"id":"b3","buffer_m":100000,"notify":["enter","exit"],"devices":["*"],"expires_at":"2027-01-15T08:00:00.000Z","clamped":true,"requested_buffer_m":250000}}"#)
    }

    @Test func aCollectionOfFeatures() throws {
        let fences = try ["a", "b"].map { try Fence(definition: FenceDefinition(id: $0, shape: .circle(center: c(8, 49), radius: 50)), settings: GeofenceSettings()) }
        let bytes = FenceFeatureEncoding.encodeCollection(fences)
        let results = try FenceDecoder.decodeCollection(Data(bytes))
        #expect(try results.map { try $0.get().id } == ["a", "b"])
        #expect(text(FenceFeatureEncoding.encodeCollection([])) == #"{"type":"FeatureCollection","features":[]}"#)
    }
}
