/// A latitude/longitude box. Longitudes may run past ±180 for boxes across the antimeridian;
/// a span of 360 or more covers every longitude.
public struct BoundingBox: Sendable, Hashable, Codable {
    public var minLat: Double
    public var maxLat: Double
    public var minLon: Double
    public var maxLon: Double

    public var coversAllLongitudes: Bool { maxLon - minLon >= 360 }

    public func contains(lat: Double, lon: Double) -> Bool {
        guard lat >= minLat, lat <= maxLat else { return false }
        if coversAllLongitudes { return true }
        if lon >= minLon, lon <= maxLon { return true }
        // The same meridian, one turn around.
        return (lon + 360 >= minLon && lon + 360 <= maxLon) || (lon - 360 >= minLon && lon - 360 <= maxLon)
    }
}
