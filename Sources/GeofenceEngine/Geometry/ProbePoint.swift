import Foundation

/// A sample's position with what every circle test needs, computed once per sample.
struct ProbePoint {
    let lat: Double
    let lon: Double
    let latRadians: Double
    let cosLat: Double

    init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
        latRadians = lat * .pi / 180
        cosLat = cos(latRadians)
    }
}
