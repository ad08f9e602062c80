/// A hierarchical grid over fence reaches. Each fence sits in the one level whose cells are at
/// least as large as its reach, so it occupies at most 2x2 cells there, and a query looks up one
/// cell per non-empty level: its cost depends on how many fences are near, not on how many exist.
public struct FenceIndex: Sendable {
    /// Level k has cells of `finestCellDegrees * 4^k` degrees; the last level covers the globe.
    static let finestCellDegrees = 0.002
    static let levelCount = 10

    private struct Level: Sendable {
        let cellDegrees: Double
        let lonCells: Int64
        var cells: [UInt64: [Int32]] = [:]
        var fenceCount = 0
    }

    private var levels: [Level]
    /// Levels holding at least one fence, finest first: the only ones a query visits.
    private var occupiedLevels: [Int] = []
    private var placements: [Int32: (level: Int, keys: [UInt64])] = [:]

    public init() {
        var levels: [Level] = []
        var size = Self.finestCellDegrees
        for _ in 0..<Self.levelCount {
            levels.append(Level(cellDegrees: size, lonCells: Int64((360 / size).rounded(.up))))
            size *= 4
        }
        self.levels = levels
    }

    public var count: Int { placements.count }

    public mutating func insert(_ slot: Int32, reach: BoundingBox) {
        remove(slot)
        let span = max(reach.maxLat - reach.minLat, min(360, reach.maxLon - reach.minLon))
        let levelIndex = levels.firstIndex { $0.cellDegrees >= span } ?? (levels.count - 1)
        let level = levels[levelIndex]
        var keys: [UInt64] = []
        let lowY = Self.cell(reach.minLat + 90, level.cellDegrees)
        let highY = Self.cell(reach.maxLat + 90, level.cellDegrees)
        let lowX: Int64, highX: Int64
        if reach.coversAllLongitudes {
            (lowX, highX) = (0, level.lonCells - 1)
        } else {
            (lowX, highX) = (Self.cell(reach.minLon + 180, level.cellDegrees), Self.cell(reach.maxLon + 180, level.cellDegrees))
        }
        for y in lowY...highY {
            for rawX in lowX...highX {
                let x = ((rawX % level.lonCells) + level.lonCells) % level.lonCells
                let key = Self.key(x: x, y: y)
                if !keys.contains(key) { keys.append(key) }
            }
        }
        for key in keys { levels[levelIndex].cells[key, default: []].append(slot) }
        levels[levelIndex].fenceCount += 1
        placements[slot] = (levelIndex, keys)
        refreshOccupied()
    }

    public mutating func remove(_ slot: Int32) {
        guard let placement = placements.removeValue(forKey: slot) else { return }
        for key in placement.keys {
            levels[placement.level].cells[key]?.removeAll { $0 == slot }
            if levels[placement.level].cells[key]?.isEmpty == true { levels[placement.level].cells[key] = nil }
        }
        levels[placement.level].fenceCount -= 1
        refreshOccupied()
    }

    /// Appends the slots of every fence whose reach may contain the point (a superset; callers
    /// check the exact distance). Each slot appears once.
    @inlinable
    public func candidates(lat: Double, lon: Double, into result: inout [Int32]) {
        forEachCandidate(lat: lat, lon: lon) { result.append($0) }
    }

    @usableFromInline
    func forEachCandidate(lat: Double, lon: Double, _ body: (Int32) -> Void) {
        guard lat.isFinite, lon.isFinite else { return }
        for levelIndex in occupiedLevels {
            let level = levels[levelIndex]
            let y = Self.cell(lat + 90, level.cellDegrees)
            var x = Self.cell(lon + 180, level.cellDegrees)
            if x >= level.lonCells { x -= level.lonCells }
            if let slots = level.cells[Self.key(x: x, y: y)] {
                for slot in slots { body(slot) }
            }
        }
    }

    private mutating func refreshOccupied() {
        occupiedLevels = levels.indices.filter { levels[$0].fenceCount > 0 }
    }

    private static func cell(_ degreesFromOrigin: Double, _ size: Double) -> Int64 {
        Int64((degreesFromOrigin / size).rounded(.down))
    }

    private static func key(x: Int64, y: Int64) -> UInt64 {
        UInt64(truncatingIfNeeded: x) << 32 | UInt64(truncatingIfNeeded: y)
    }
}
