/// A hierarchical grid over fence reaches. Level k has cells of `finestCellDegrees * 2^k`; each
/// fence sits in the finest level whose cells are at least a third of its reach, so it covers at
/// most 4x4 cells there, and a query looks up one cell per occupied level. Each cell keeps the
/// reach boxes of its fences, so most non-matches are rejected with four comparisons. The cost of
/// a query depends on how many fences are near, not on how many exist.
public struct FenceIndex: Sendable {
    static let finestCellDegrees = 0.0005
    static let levelCount = 11

    /// A fence's reach rounded outward to Float: half the memory of Double, still conservative.
    struct Entry: Sendable {
        let slot: Int32
        let minLat: Float, maxLat: Float, minLon: Float, maxLon: Float

        init(slot: Int32, reach: BoundingBox, lonShift: Double) {
            self.slot = slot
            minLat = Float(reach.minLat).nextDown
            maxLat = Float(reach.maxLat).nextUp
            minLon = Float(reach.minLon + lonShift).nextDown
            maxLon = Float(reach.maxLon + lonShift).nextUp
        }

            func contains(lat: Float, lon: Float) -> Bool {
            lat >= minLat && lat <= maxLat && lon >= minLon && lon <= maxLon
        }
    }

    struct Level: Sendable {
        let cellDegrees: Double
        let lonCells: Int64
        /// Longitude cells tile the globe exactly (360 / lonCells), so that the column past +180
        /// is column 0 again and no partial column hides fences across the antimeridian.
        let lonCellDegrees: Double
        var cells: [UInt64: [Entry]] = [:]
        var fenceCount = 0
    }

    var levels: [Level]
    /// Levels holding at least one fence, finest first: the only ones a query visits.
    var occupiedLevels: [Int] = []
    private var placements: [Int32: (level: Int, keys: [UInt64])] = [:]

    public init() {
        var levels: [Level] = []
        var size = Self.finestCellDegrees
        for _ in 0..<Self.levelCount {
            let lonCells = max(1, Int64((360 / size).rounded(.down)))
            levels.append(Level(cellDegrees: size, lonCells: lonCells, lonCellDegrees: 360 / Double(lonCells)))
            size *= 4
        }
        self.levels = levels
    }

    public var count: Int { placements.count }

    public mutating func insert(_ slot: Int32, reach: BoundingBox) {
        remove(slot)
        let span = max(reach.maxLat - reach.minLat, min(360, reach.maxLon - reach.minLon))
        let levelIndex = levels.firstIndex { $0.cellDegrees * 3 >= span } ?? (levels.count - 1)
        // The level's scalars only: holding the Level itself would keep a second reference to its
        // cells and make every insert copy the whole dictionary.
        let (cellDegrees, lonCellDegrees, lonCells) =
            (levels[levelIndex].cellDegrees, levels[levelIndex].lonCellDegrees, levels[levelIndex].lonCells)
        var placed: [UInt64] = []
        // Taken out of the level while entries are added, so that it is certainly the only
        // reference: a shared one would be copied whole by every insert (seen: minutes for 100k).
        var cells = levels[levelIndex].cells
        levels[levelIndex].cells = [:]
        defer { levels[levelIndex].cells = cells }
        func add(_ entry: Entry, key: UInt64) {
            cells[key, default: []].append(entry)
            if !placed.contains(key) { placed.append(key) }
        }
        let lowY = Self.cell(reach.minLat + 90, cellDegrees)
        let highY = Self.cell(reach.maxLat + 90, cellDegrees)
        if reach.coversAllLongitudes {
            let everywhere = BoundingBox(minLat: reach.minLat, maxLat: reach.maxLat, minLon: -181, maxLon: 181)
            for y in lowY...highY {
                for x in 0..<lonCells {
                    add(Entry(slot: slot, reach: everywhere, lonShift: 0), key: Self.key(x: x, y: y))
                }
            }
        } else {
            let lowX = Self.cell(reach.minLon + 180, lonCellDegrees)
            let highX = Self.cell(reach.maxLon + 180, lonCellDegrees)
            for y in lowY...highY {
                for rawX in lowX...highX {
                    // Cells past ±180 wrap around; the box is shifted by the same turn so that
                    // queries compare in the cell's own longitudes.
                    let turns = rawX >= 0 ? rawX / lonCells : (rawX - lonCells + 1) / lonCells
                    let x = rawX - turns * lonCells
                    let entry = Entry(slot: slot, reach: reach, lonShift: -360 * Double(turns))
                    add(entry, key: Self.key(x: x, y: y))
                }
            }
        }
        levels[levelIndex].fenceCount += 1
        placements[slot] = (levelIndex, placed)
        refreshOccupied()
    }

    public mutating func remove(_ slot: Int32) {
        guard let placement = placements.removeValue(forKey: slot) else { return }
        // Taken out while changed, as in insert.
        var cells = levels[placement.level].cells
        levels[placement.level].cells = [:]
        for key in placement.keys {
            cells[key]?.removeAll { $0.slot == slot }
            if cells[key]?.isEmpty == true { cells[key] = nil }
        }
        levels[placement.level].cells = cells
        levels[placement.level].fenceCount -= 1
        refreshOccupied()
    }

    /// Appends the slots of fences whose reach contains the point (a superset of the fences the
    /// point is inside or within evidence distance of; callers check the exact distance). A slot
    /// can appear more than once only for reaches wider than the globe's longitudes.
    public func candidates(lat: Double, lon: Double, into result: inout [Int32]) {
        guard lat.isFinite, lon.isFinite else { return }
        let latF = Float(lat), lonF = Float(lon)
        for levelIndex in occupiedLevels {
            let level = levels[levelIndex]
            let y = Int64(((lat + 90) / level.cellDegrees).rounded(.down))
            var x = Int64(((lon + 180) / level.lonCellDegrees).rounded(.down))
            if x >= level.lonCells { x -= level.lonCells }
            guard let entries = level.cells[UInt64(truncatingIfNeeded: x) << 32 | UInt64(truncatingIfNeeded: y)] else {
                continue
            }
            for entry in entries where entry.contains(lat: latF, lon: lonF) { result.append(entry.slot) }
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
