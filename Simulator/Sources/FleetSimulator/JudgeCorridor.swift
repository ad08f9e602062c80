import Foundation
import GeofenceEngine

/// A corridor fence as the judge measures it: every point within `buffer` metres of a line, with
/// round caps at its ends (docs/topics-and-payloads.md "Fences"). As for polygons, the line's legs are straight in
/// latitude and longitude and each query is measured in a plane tangent at the queried point.
struct JudgeCorridor: Sendable {
    /// The line's first point: offsets are taken from it.
    let origin: Coordinate
    /// Vertices as degree offsets from `origin`, longitudes unwrapped; no repeated neighbours.
    let lonOffsets: [Double]
    let latOffsets: [Double]
    /// The half-width after the clamp, metres.
    let buffer: Double

    /// `line`: at least two distinct points.
    init(line: [Coordinate], buffer: Double) {
        var points: [Coordinate] = []
        for point in line where point != points.last { points.append(point) }
        let origin = points[0]
        self.origin = origin
        lonOffsets = points.map { JudgePolygon.lonOffset($0.lon, from: origin.lon) }
        latOffsets = points.map { $0.lat - origin.lat }
        self.buffer = buffer
    }

    /// `buffer` minus the distance to the line: positive inside, metres.
    func signedDistance(to point: Coordinate) -> Double {
        let px = JudgePolygon.lonOffset(point.lon, from: origin.lon), py = point.lat - origin.lat
        let ky = JudgeGeometry.metersPerDegree
        let kx = ky * max(cos(point.lat * .pi / 180), 1e-9)
        var nearestSquared = Double.infinity
        var ax = (lonOffsets[0] - px) * kx, ay = (latOffsets[0] - py) * ky
        if lonOffsets.count == 1 { nearestSquared = ax * ax + ay * ay }
        for i in lonOffsets.indices.dropFirst() {
            // Leg a→b with the query point at (0, 0); the nearest point of the leg, ends included
            // (the round caps).
            let bx = (lonOffsets[i] - px) * kx, by = (latOffsets[i] - py) * ky
            nearestSquared = min(nearestSquared, JudgeGeometry.squaredDistanceToSegment(ax, ay, bx, by))
            ax = bx
            ay = by
        }
        return buffer - nearestSquared.squareRoot()
    }

    /// The line's box, in degrees (longitudes unwrapped around `origin`).
    var lats: ClosedRange<Double> { (origin.lat + latOffsets.min()!)...(origin.lat + latOffsets.max()!) }
    var lons: ClosedRange<Double> { (origin.lon + lonOffsets.min()!)...(origin.lon + lonOffsets.max()!) }
}
