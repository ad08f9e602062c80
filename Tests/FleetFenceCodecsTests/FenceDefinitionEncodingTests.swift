import GeofenceEngine
import Testing

@testable import FleetFenceCodecs
import SeededRandom

/// The journal keeps fences as `FenceDefinitionEncoding` writes them and reads them back with
/// `FenceDecoder`: every definition must come back equal.
@Suite("Fence definitions out")
struct FenceDefinitionEncodingTests {
    private func roundTrip(_ definition: FenceDefinition) throws -> FenceDefinition {
        try FenceDecoder.decodeDefinition(FenceDefinitionEncoding.encode(definition), idFromTopic: nil)
    }

    @Test func circleWithEverything() throws {
        let d = FenceDefinition(
            id: "wdf01", name: "SAP \"WDF01\"", description: "Süd\nTor 3",
            shape: .circle(center: Coordinate(lat: 49.2931, lon: 8.6413), radius: 5), notify: [.dwell, .enter],
            dwellSeconds: 600.5)
        #expect(String(decoding: FenceDefinitionEncoding.encode(d), as: UTF8.self)
            == #"{"id":"wdf01","name":"SAP \"WDF01\"","description":"Süd\nTor 3","lat":49.2931,"lon":8.6413,"radius":5,"notify":["enter","dwell"],"dwell_s":600.5}"#)
        #expect(try roundTrip(d) == d)
    }

    @Test func absentFieldsStayAbsent() throws {
        // No notify is not the same as the default set written out: the default follows dwell_s.
        let d = FenceDefinition(id: "a", shape: .circle(center: Coordinate(lat: -33.9, lon: 151.2), radius: 150))
        #expect(String(decoding: FenceDefinitionEncoding.encode(d), as: UTF8.self) == #"{"id":"a","lat":-33.9,"lon":151.2,"radius":150}"#)
        #expect(try roundTrip(d) == d)
        let empty = FenceDefinition(id: "quiet", shape: d.shape, notify: [])
        #expect(try roundTrip(empty) == empty)
    }

    @Test func polygonKeepsItsVerticesExactly() throws {
        let d = FenceDefinition(
            id: "yard",
            shape: .polygon([
                Coordinate(lat: 49.000000000000014, lon: 8.1 + 1e-15), Coordinate(lat: 49, lon: 8.2),
                Coordinate(lat: 49.1, lon: 8.15), Coordinate(lat: 49.000000000000014, lon: 8.1 + 1e-15),
            ]))
        #expect(try roundTrip(d) == d)
    }

    @Test func randomDefinitionsRoundTrip() throws {
        var rng = SeededRandom(seed: 31)
        for n in 0..<500 {
            let center = Coordinate(lat: .random(in: -90...90, using: &rng), lon: .random(in: -180...180, using: &rng))
            let shape: FenceShape = Bool.random(using: &rng)
                ? .circle(center: center, radius: .random(in: 0...100_000, using: &rng))
                : .polygon((0..<Int.random(in: 3...12, using: &rng)).map { _ in
                    Coordinate(lat: center.lat + .random(in: -0.01...0.01, using: &rng), lon: center.lon + .random(in: -0.01...0.01, using: &rng))
                })
            let notify = Bool.random(using: &rng) ? nil : Set(AlertEvent.notifiable.sorted().filter { _ in Bool.random(using: &rng) })
            let d = FenceDefinition(
                id: "fence-\(n)", name: Bool.random(using: &rng) ? "Depot \(n) \u{1F69A}" : nil,
                description: Bool.random(using: &rng) ? "tab\there" : nil, shape: shape, notify: notify,
                dwellSeconds: Bool.random(using: &rng) ? .random(in: 0...86_400, using: &rng) : nil)
            #expect(try roundTrip(d) == d)
        }
    }
}
