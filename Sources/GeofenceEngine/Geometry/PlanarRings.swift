/// Closed rings in local metres, one after another, with a box around each run of up to
/// `chunkEdges` edges: a point far from part of a large ring skips that part, for both the
/// even-odd count and the nearest edge.
struct PlanarRings: Sendable {
    static let chunkEdges = 16

    struct Chunk: Sendable {
        /// Edges `start..<end` join points `i` and `i + 1`.
        let start: Int
        let end: Int
        let minX: Double, maxX: Double, minY: Double, maxY: Double
    }

    private let xs: [Double]
    private let ys: [Double]
    private let chunks: [Chunk]

    /// `rings`: open rings of (x, y) metres, outer first.
    init(_ rings: [[(x: Double, y: Double)]]) {
        var xs: [Double] = [], ys: [Double] = [], chunks: [Chunk] = []
        for ring in rings {
            let first = xs.count
            for point in ring + [ring[0]] {
                xs.append(point.x)
                ys.append(point.y)
            }
            var start = first
            let lastEdgeEnd = xs.count - 1
            while start < lastEdgeEnd {
                let end = min(start + Self.chunkEdges, lastEdgeEnd)
                let xRun = xs[start...end], yRun = ys[start...end]
                chunks.append(Chunk(start: start, end: end, minX: xRun.min()!, maxX: xRun.max()!, minY: yRun.min()!, maxY: yRun.max()!))
                start = end
            }
        }
        self.xs = xs
        self.ys = ys
        self.chunks = chunks
    }

    /// Positive inside, negative outside, in metres: the distance to the nearest edge of any ring,
    /// inside by the even-odd rule (so inside a hole is outside).
    func signedDistance(_ px: Double, _ py: Double) -> Double {
        var inside = false
        var best = Double.infinity
        xs.withUnsafeBufferPointer { xs in
            ys.withUnsafeBufferPointer { ys in
                for chunk in chunks {
                    // No edge of the chunk can toggle a ray going east from a point beside,
                    // above, below or east of its box.
                    let counts = py >= chunk.minY && py < chunk.maxY && px < chunk.maxX
                    let dx = max(chunk.minX - px, 0, px - chunk.maxX), dy = max(chunk.minY - py, 0, py - chunk.maxY)
                    if !counts && dx * dx + dy * dy >= best { continue }
                    for i in chunk.start..<chunk.end {
                        let ax = xs[i], ay = ys[i], bx = xs[i + 1], by = ys[i + 1]
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
        }
        let distance = best.squareRoot()
        return inside ? distance : -distance
    }
}
