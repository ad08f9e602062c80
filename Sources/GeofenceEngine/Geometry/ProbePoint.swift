import Foundation

/// A sample's position with what every circle test needs.
struct ProbePoint {
    let lat: Double
    let lon: Double
    let latRadians: Double
    /// Computed where a circle or corridor asks, not per sample: most samples are near none, and
    /// `cos` for each was 6% of engine-bench's samples. Computed so, engine-bench gained 4-11% by
    /// case (docs/performance.md), though a sample near several circles pays it for each.
    var cosLat: Double { cos(latRadians) }

    init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
        latRadians = lat * .pi / 180
    }
}
