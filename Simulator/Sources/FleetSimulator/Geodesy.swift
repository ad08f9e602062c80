import Foundation
import GeofenceEngine

/// The few spherical helpers the simulator needs beyond `JudgeGeometry.distance`.
enum Geodesy {
    static let metersPerDegreeLat = JudgeGeometry.metersPerDegree

    /// Initial bearing from `a` to `b`, degrees clockwise from north in [0, 360).
    static func bearing(from a: Coordinate, to b: Coordinate) -> Double {
        let lat1 = a.lat * .pi / 180, lat2 = b.lat * .pi / 180
        let dLon = (b.lon - a.lon) * .pi / 180
        let y = sin(dLon) * cos(lat2)
        let x = cos(lat1) * sin(lat2) - sin(lat1) * cos(lat2) * cos(dLon)
        let degrees = atan2(y, x) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// `c` moved by small north/east offsets in metres (a local tangent plane: GPS noise scale).
    static func offset(_ c: Coordinate, north: Double, east: Double) -> Coordinate {
        let lat = c.lat + north / metersPerDegreeLat
        let lon = c.lon + east / (metersPerDegreeLat * max(cos(c.lat * .pi / 180), 1e-9))
        return Coordinate(lat: lat, lon: lon)
    }

    /// Linear interpolation in degrees: exact enough over GPX legs of a few hundred metres.
    static func interpolate(_ a: Coordinate, _ b: Coordinate, _ f: Double) -> Coordinate {
        Coordinate(lat: a.lat + (b.lat - a.lat) * f, lon: a.lon + (b.lon - a.lon) * f)
    }
}
