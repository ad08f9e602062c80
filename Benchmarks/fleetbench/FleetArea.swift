import Foundation
import SeededRandom

/// Where the benchmark's trucks drive and its fences lie: about 110 km x 100 km around Walldorf.
struct FleetArea: Sendable {
    var centerLat = 49.30
    var centerLon = 8.60
    var halfLat = 0.45
    var halfLon = 0.70

    var minLat: Double { centerLat - halfLat }
    var maxLat: Double { centerLat + halfLat }
    var minLon: Double { centerLon - halfLon }
    var maxLon: Double { centerLon + halfLon }

    func randomPoint(using random: inout SeededRandom) -> (lat: Double, lon: Double) {
        (Double.random(in: minLat...maxLat, using: &random), Double.random(in: minLon...maxLon, using: &random))
    }

    func contains(lat: Double, lon: Double) -> Bool {
        (minLat...maxLat).contains(lat) && (minLon...maxLon).contains(lon)
    }

    /// The point `north` and `east` metres away (equirectangular; exact enough at fence scale).
    static func offset(lat: Double, lon: Double, north: Double, east: Double) -> (lat: Double, lon: Double) {
        let metresPerDegree = 111_320.0
        return (lat + north / metresPerDegree, lon + east / (metresPerDegree * cos(lat * .pi / 180)))
    }
}
