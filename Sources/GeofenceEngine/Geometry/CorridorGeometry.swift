import Foundation

/// A corridor: every point within `buffer` metres of a polyline (round caps at its ends).
/// Distances are measured in an equirectangular plane centred on the sample itself, so that a
/// corridor hundreds of kilometres long is as exact near every sample as a small fence; runs of
/// up to 16 segments with a box each let a sample skip the parts of the line far from it.
final class CorridorGeometry: Sendable {
    static let chunkSegments = 16
    /// minLat, maxLat, minLon, maxLon, first segment, end segment.
    private static let chunkStride = 6

    /// The line as validated, without repeated points.
    let line: [Coordinate]
    let buffer: Double
    /// The runs' boxes, then the vertices as lat, lon pairs, longitudes unwrapped around the first
    /// vertex so that a line across ±180 stays contiguous: one buffer to read.
    private let storage: [Double]
    private let chunkCount: Int
    private let firstLon: Double
    private let minLat: Double, maxLat: Double, minLon: Double, maxLon: Double

    init(line: [Coordinate], buffer: Double) {
        self.line = line
        self.buffer = buffer
        let firstLon = line[0].lon
        self.firstLon = firstLon
        let lats = line.map(\.lat)
        let lons = line.map { firstLon + Earth.wrappedLongitudeDelta($0.lon, from: firstLon) }
        var chunks: [Double] = []
        var start = 0
        while start < line.count - 1 {
            let end = min(start + Self.chunkSegments, line.count - 1)
            let latRun = lats[start...end], lonRun = lons[start...end]
            chunks += [latRun.min()!, latRun.max()!, lonRun.min()!, lonRun.max()!, Double(start), Double(end)]
            start = end
        }
        chunkCount = chunks.count / Self.chunkStride
        storage = chunks + zip(lats, lons).flatMap { [$0, $1] }
        (minLat, maxLat, minLon, maxLon) = (lats.min()!, lats.max()!, lons.min()!, lons.max()!)
    }

    /// `buffer` minus the distance to the line: positive inside, in metres.
    func signedDistance(to point: ProbePoint) -> Double {
        buffer - distanceToLine(lat: point.lat, lon: point.lon, cosLat: point.cosLat)
    }

    func distanceToLine(lat: Double, lon: Double, cosLat: Double) -> Double {
        let plon = firstLon + Earth.wrappedLongitudeDelta(lon, from: firstLon)
        let kx = Earth.metersPerDegree * cosLat, ky = Earth.metersPerDegree
        var best = Double.infinity
        storage.withUnsafeBufferPointer { storage in
            let vertices = storage.baseAddress! + chunkCount * Self.chunkStride
            for c in 0..<chunkCount {
                let chunk = storage.baseAddress! + c * Self.chunkStride
                let dy = max(chunk[0] - lat, 0, lat - chunk[1]) * ky
                let dx = max(chunk[2] - plon, 0, plon - chunk[3]) * kx
                if dx * dx + dy * dy >= best { continue }
                for i in Int(chunk[4])..<Int(chunk[5]) {
                    let ay = (vertices[2 * i] - lat) * ky, ax = (vertices[2 * i + 1] - plon) * kx
                    let ey = (vertices[2 * i + 2] - lat) * ky - ay, ex = (vertices[2 * i + 3] - plon) * kx - ax
                    let lengthSquared = ex * ex + ey * ey
                    var t = lengthSquared > 0 ? -(ax * ex + ay * ey) / lengthSquared : 0
                    t = min(1, max(0, t))
                    let qx = ax + t * ex, qy = ay + t * ey
                    best = min(best, qx * qx + qy * qy)
                }
            }
        }
        return best.squareRoot()
    }

    /// The line's box grown by `buffer + margin` metres. Near the poles the box covers every longitude.
    func boundingBox(grownBy margin: Double) -> BoundingBox {
        let reach = (buffer + margin) / Earth.metersPerDegree
        let minLat = max(-90, self.minLat - reach)
        let maxLat = min(90, self.maxLat + reach)
        let cosLat = cos(max(abs(minLat), abs(maxLat)) * .pi / 180)
        if maxLat >= 90 || minLat <= -90 || cosLat < 1e-6 || maxLon - minLon + 2 * reach / cosLat >= 360 {
            return BoundingBox(minLat: minLat, maxLat: maxLat, minLon: -180, maxLon: 180 + 360)
        }
        return BoundingBox(minLat: minLat, maxLat: maxLat, minLon: minLon - reach / cosLat, maxLon: maxLon + reach / cosLat)
    }
}
