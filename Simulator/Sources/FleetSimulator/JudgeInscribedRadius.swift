import Foundation

/// The radius of the largest circle inside a polygon, found the judge's way: a coarse grid over
/// the polygon, refined level by level where it can still hide a deeper point. A point is at most
/// half a cell's diagonal from its cell's centre, and depth changes no faster than distance, so a
/// cell whose centre is `d` deep holds nothing deeper than `d` plus that half diagonal.
enum JudgeInscribedRadius {
    /// Never more than the true radius; at most 5 cm or 0.2% less.
    static func of(_ polygon: JudgePolygon) -> Double {
        // Cells in metres on a plane around the ring's middle latitude.
        let ky = JudgeGeometry.metersPerDegree
        let midLat = (polygon.latOffsets.min()! + polygon.latOffsets.max()!) / 2
        let kx = ky * max(cos((polygon.origin.lat + midLat) * .pi / 180), 1e-9)
        let minX = polygon.lonOffsets.min()! * kx, maxX = polygon.lonOffsets.max()! * kx
        let minY = polygon.latOffsets.min()! * ky, maxY = polygon.latOffsets.max()! * ky
        let width = maxX - minX, height = maxY - minY
        guard width > 0, height > 0 else { return 0 }
        func depth(_ x: Double, _ y: Double) -> Double {
            polygon.signedDistance(lonOffset: x / kx, latOffset: y / ky)
        }

        // Eight cells across the short side, at most 64 along the long one.
        var size = max(min(width, height) / 8, max(width, height) / 64)
        var cells: [(x: Double, y: Double)] = []
        for row in 0..<Int((height / size).rounded(.up)) {
            for column in 0..<Int((width / size).rounded(.up)) {
                cells.append((minX + (Double(column) + 0.5) * size, minY + (Double(row) + 0.5) * size))
            }
        }
        var best = 0.0
        while !cells.isEmpty {
            let depths = cells.map { depth($0.x, $0.y) }
            best = max(best, depths.max()!)
            let halfDiagonal = size / 2.0.squareRoot()
            let enough = max(0.05, 0.002 * best)
            size /= 2
            let quarter = size / 2
            var finer: [(x: Double, y: Double)] = []
            for (cell, d) in zip(cells, depths) where d + halfDiagonal > best + enough {
                finer.append((cell.x - quarter, cell.y - quarter))
                finer.append((cell.x + quarter, cell.y - quarter))
                finer.append((cell.x - quarter, cell.y + quarter))
                finer.append((cell.x + quarter, cell.y + quarter))
            }
            cells = finer
        }
        return best
    }
}
