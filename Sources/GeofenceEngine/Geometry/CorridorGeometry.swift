import Foundation

/// A corridor: every point within `buffer` metres of a polyline (round caps at its ends).
/// Distances are measured in an equirectangular plane centred on the sample itself, so that a
/// corridor hundreds of kilometres long is as exact near every sample as a small fence; runs of
/// up to 16 segments with a box each let a sample skip the parts of the line far from it.
final class CorridorGeometry: Sendable {
    static let chunkSegments = 16

    struct Chunk: Sendable {
        /// Segments `start..<end` join vertices `i` and `i + 1`.
        let start: Int
        let end: Int
        let minLat: Double, maxLat: Double, minLon: Double, maxLon: Double
    }

    /// The line as validated, without repeated points.
    let line: [Coordinate]
    let buffer: Double
    private let lats: [Double]
    /// Unwrapped around the first vertex, so that a line across ±180 stays contiguous.
    private let lons: [Double]
    private let chunks: [Chunk]

    init(line: [Coordinate], buffer: Double) {
        self.line = line
        self.buffer = buffer
        let firstLon = line[0].lon
        lats = line.map(\.lat)
        lons = line.map { firstLon + Earth.wrappedLongitudeDelta($0.lon, from: firstLon) }
        var chunks: [Chunk] = []
        var start = 0
        while start < line.count - 1 {
            let end = min(start + Self.chunkSegments, line.count - 1)
            let latRun = lats[start...end], lonRun = lons[start...end]
            chunks.append(Chunk(start: start, end: end, minLat: latRun.min()!, maxLat: latRun.max()!, minLon: lonRun.min()!, maxLon: lonRun.max()!))
            start = end
        }
        self.chunks = chunks
    }

    /// `buffer` minus the distance to the line: positive inside, in metres.
    func signedDistance(to point: ProbePoint) -> Double {
        buffer - distanceToLine(lat: point.lat, lon: point.lon, cosLat: point.cosLat)
    }

    func distanceToLine(lat: Double, lon: Double, cosLat: Double) -> Double {
        let plon = lons[0] + Earth.wrappedLongitudeDelta(lon, from: lons[0])
        let kx = Earth.metersPerDegree * cosLat, ky = Earth.metersPerDegree
        var best = Double.infinity
        lats.withUnsafeBufferPointer { lats in
            lons.withUnsafeBufferPointer { lons in
                for chunk in chunks {
                    let dx = max(chunk.minLon - plon, 0, plon - chunk.maxLon) * kx
                    let dy = max(chunk.minLat - lat, 0, lat - chunk.maxLat) * ky
                    if dx * dx + dy * dy >= best { continue }
                    for i in chunk.start..<chunk.end {
                        let ax = (lons[i] - plon) * kx, ay = (lats[i] - lat) * ky
                        let ex = (lons[i + 1] - plon) * kx - ax, ey = (lats[i + 1] - lat) * ky - ay
                        let lengthSquared = ex * ex + ey * ey
                        var t = lengthSquared > 0 ? -(ax * ex + ay * ey) / lengthSquared : 0
                        t = min(1, max(0, t))
                        let qx = ax + t * ex, qy = ay + t * ey
                        best = min(best, qx * qx + qy * qy)
                    }
                }
            }
        }
        return best.squareRoot()
    }

    /// The line's box grown by `buffer + margin` metres. Near the poles the box covers every longitude.
    func boundingBox(grownBy margin: Double) -> BoundingBox {
        let reach = (buffer + margin) / Earth.metersPerDegree
        let minLat = max(-90, lats.min()! - reach)
        let maxLat = min(90, lats.max()! + reach)
        let cosLat = cos(max(abs(minLat), abs(maxLat)) * .pi / 180)
        let minLon = lons.min()!, maxLon = lons.max()!
        if maxLat >= 90 || minLat <= -90 || cosLat < 1e-6 || maxLon - minLon + 2 * reach / cosLat >= 360 {
            return BoundingBox(minLat: minLat, maxLat: maxLat, minLon: -180, maxLon: 180 + 360)
        }
        return BoundingBox(minLat: minLat, maxLat: maxLat, minLon: minLon - reach / cosLat, maxLon: maxLon + reach / cosLat)
    }
}
