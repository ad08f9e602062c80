import Foundation
import GeofenceEngine
import Testing

@testable import FleetFenceService

@Suite("Device record encoding")
struct DeviceRecordEncodingTests {
    /// Records in every shape the engine makes (unknown, inside, outside with a pending change
    /// with and without evidence, dwell reported, inaccurate-only devices), from random walks
    /// around a few fences: each must read back through Codable as exactly the same record.
    @Test func everyRecordReadsBackExactly() throws {
        var engine = GeofenceEngine(settings: GeofenceSettings(debounceSeconds: 5))
        let centre = (lat: 49.293406, lon: 8.641362)
        for (k, radius) in [120.0, 300, 45].enumerated() {
            try engine.setFence(FenceDefinition(
                id: "f\(k)", name: "Fence \(k)", shape: .circle(center: Coordinate(lat: centre.lat + Double(k) * 0.002, lon: centre.lon), radius: radius),
                notify: [.enter, .exit, .dwell], dwellSeconds: 30))
        }
        var rng = SystemRandomNumberGenerator()
        var transitions: [Transition] = []
        for device in 0..<40 {
            var lat = centre.lat + Double.random(in: -0.003...0.006, using: &rng)
            var lon = centre.lon + Double.random(in: -0.003...0.003, using: &rng)
            var t = 1_795_600_000.0 + Double.random(in: 0...1, using: &rng)
            for _ in 0..<Int.random(in: 1...120, using: &rng) {
                lat += Double.random(in: -0.0004...0.0004, using: &rng)
                lon += Double.random(in: -0.0004...0.0004, using: &rng)
                t += Double.random(in: 0.3...3, using: &rng)
                let acc: Double? = Bool.random(using: &rng) ? nil : Double.random(in: 1...150, using: &rng)
                engine.process(
                    device: "truck-\(device) \"ü\"", sample: PositionSample(lat: lat, lon: lon, timestamp: t, accuracy: acc),
                    arrival: t + 0.25, into: &transitions)
            }
        }
        var shapes = Set<String>()
        for device in 0..<40 {
            let record = try #require(engine.deviceRecord(for: "truck-\(device) \"ü\""))
            let bytes = DeviceRecordEncoding.encode(record)
            let decoded = try JSONDecoder().decode(DeviceRecord.self, from: Data(bytes))
            #expect(decoded == record, "\(String(decoding: bytes, as: UTF8.self))")
            for region in record.regions {
                shapes.insert("\(region.state) pending=\(region.pending != nil) evidence=\(region.pending?.evidenceSince != nil)")
            }
        }
        #expect(shapes.count >= 3, "\(shapes)")
    }
}
