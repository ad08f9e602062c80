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
    /// Each slot's level and reach, by slot (the engine's slots are dense), so that `remove`
    /// finds the same cells again without a list of them kept per fence.
    private var placements: [Placement?] = []

    /// Fences held.
    public var count: Int { levels.reduce(0) { $0 + $1.fenceCount } }

    struct Placement: Sendable {
        let level: Int
        let reach: BoundingBox
    }

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

    /// Room for slots up to `slots` without growing one at a time.
    public mutating func reserveCapacity(_ slots: Int) {
        placements.reserveCapacity(slots)
    }

    public mutating func insert(_ slot: Int32, reach: BoundingBox) {
        remove(slot)
        let span = max(reach.maxLat - reach.minLat, min(360, reach.maxLon - reach.minLon))
        let level = levels.firstIndex { $0.cellDegrees * 3 >= span } ?? (levels.count - 1)
        changeCells(ofLevel: level) { cells, geometry in
            Self.forEachCell(of: reach, slot: slot, level: geometry) { key, entry in cells[key, default: []].append(entry) }
        }
        let index = Int(slot)
        if index >= placements.count { placements.append(contentsOf: repeatElement(nil, count: index - placements.count + 1)) }
        placements[index] = Placement(level: level, reach: reach)
        levels[level].fenceCount += 1
        if levels[level].fenceCount == 1 { refreshOccupied() }
    }

    public mutating func remove(_ slot: Int32) {
        let index = Int(slot)
        guard index < placements.count, let placement = placements[index] else { return }
        placements[index] = nil
        changeCells(ofLevel: placement.level) { cells, geometry in
            Self.forEachCell(of: placement.reach, slot: slot, level: geometry) { key, _ in
                cells[key]?.removeAll { $0.slot == slot }
                if cells[key]?.isEmpty == true { cells[key] = nil }
            }
        }
        levels[placement.level].fenceCount -= 1
        if levels[placement.level].fenceCount == 0 { refreshOccupied() }
    }

    /// Runs `body` on a level's cells taken out of the level, so that they are certainly the only
    /// reference while changed: a shared one would be copied whole by every insert (seen: minutes
    /// for 100k fences). `body` also gets the level's geometry (its cells emptied meanwhile).
    private mutating func changeCells(ofLevel level: Int, _ body: (inout [UInt64: [Entry]], Level) -> Void) {
        var cells = levels[level].cells
        levels[level].cells = [:]
        body(&cells, levels[level])
        levels[level].cells = cells
    }

    /// Every cell of `level` that `reach` touches, with the entry that goes there. A reach wider
    /// than a level's longitudes meets the same cell twice, each time with its own turn.
    private static func forEachCell(of reach: BoundingBox, slot: Int32, level: Level, _ body: (UInt64, Entry) -> Void) {
        let lowY = Self.cell(reach.minLat + 90, level.cellDegrees)
        let highY = Self.cell(reach.maxLat + 90, level.cellDegrees)
        if reach.coversAllLongitudes {
            let everywhere = BoundingBox(minLat: reach.minLat, maxLat: reach.maxLat, minLon: -181, maxLon: 181)
            let entry = Entry(slot: slot, reach: everywhere, lonShift: 0)
            for y in lowY...highY {
                for x in 0..<level.lonCells { body(Self.key(x: x, y: y), entry) }
            }
            return
        }
        let lowX = Self.cell(reach.minLon + 180, level.lonCellDegrees)
        let highX = Self.cell(reach.maxLon + 180, level.lonCellDegrees)
        for y in lowY...highY {
            for rawX in lowX...highX {
                // Cells past ±180 wrap around; the box is shifted by the same turn so that
                // queries compare in the cell's own longitudes.
                let turns = rawX >= 0 ? rawX / level.lonCells : (rawX - level.lonCells + 1) / level.lonCells
                let x = rawX - turns * level.lonCells
                body(Self.key(x: x, y: y), Entry(slot: slot, reach: reach, lonShift: -360 * Double(turns)))
            }
        }
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
