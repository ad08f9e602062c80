/// Closed rings in local metres, one after another, with a box around each run of up to
/// `chunkEdges` edges: a point far from part of a large ring skips it, for both the even-odd
/// count and the nearest edge. Everything is in one array of Doubles (the runs' boxes, then the
/// points as x, y pairs), so that measuring a polygon far from any cache reads one buffer, not
/// three.
struct PlanarRings: Sendable {
    static let chunkEdges = 16
    /// minX, maxX, minY, maxY, first edge, end edge.
    private static let chunkStride = 6

    private let storage: [Double]
    private let chunkCount: Int

    /// `rings`: open rings of (x, y) metres, outer first.
    init(_ rings: [[(x: Double, y: Double)]]) {
        var points: [Double] = []
        var chunks: [Double] = []
        for ring in rings {
            let first = points.count / 2
            for point in ring + [ring[0]] {
                points.append(point.x)
                points.append(point.y)
            }
            var start = first
            let lastEdgeEnd = points.count / 2 - 1
            while start < lastEdgeEnd {
                let end = min(start + Self.chunkEdges, lastEdgeEnd)
                let xs = (start...end).map { points[2 * $0] }, ys = (start...end).map { points[2 * $0 + 1] }
                chunks += [xs.min()!, xs.max()!, ys.min()!, ys.max()!, Double(start), Double(end)]
                start = end
            }
        }
        chunkCount = chunks.count / Self.chunkStride
        storage = chunks + points
    }

    /// Positive inside, negative outside, in metres: the distance to the nearest edge of any ring,
    /// inside by the even-odd rule (so inside a hole is outside).
    func signedDistance(_ px: Double, _ py: Double) -> Double {
        var inside = false
        var best = Double.infinity
        storage.withUnsafeBufferPointer { storage in
            let points = storage.baseAddress! + chunkCount * Self.chunkStride
            for c in 0..<chunkCount {
                let chunk = storage.baseAddress! + c * Self.chunkStride
                let (minX, maxX, minY, maxY) = (chunk[0], chunk[1], chunk[2], chunk[3])
                // No edge of the chunk can toggle a ray going east from a point beside, above,
                // below or east of its box.
                let counts = py >= minY && py < maxY && px < maxX
                let dx = max(minX - px, 0, px - maxX), dy = max(minY - py, 0, py - maxY)
                if !counts && dx * dx + dy * dy >= best { continue }
                for i in Int(chunk[4])..<Int(chunk[5]) {
                    let ax = points[2 * i], ay = points[2 * i + 1], bx = points[2 * i + 2], by = points[2 * i + 3]
                    if (ay > py) != (by > py) {
                        let crossX = ax + (py - ay) / (by - ay) * (bx - ax)
                        if px < crossX { inside.toggle() }
                    }
                    let ex = bx - ax, ey = by - ay
                    let lengthSquared = ex * ex + ey * ey
                    var t = lengthSquared > 0 ? ((px - ax) * ex + (py - ay) * ey) / lengthSquared : 0
                    t = min(1, max(0, t))
                    let qx = ax + t * ex - px, qy = ay + t * ey - py
                    best = min(best, qx * qx + qy * qy)
                }
            }
        }
        let distance = best.squareRoot()
        return inside ? distance : -distance
    }
}
