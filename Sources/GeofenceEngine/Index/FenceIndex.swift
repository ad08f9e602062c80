/// A hierarchical grid over fence reaches. Level k has cells of `finestCellDegrees * 8^k`; each
/// fence sits in the finest level whose cells are at least a third of its reach, so it covers at
/// most 4x4 cells there, and a query looks up one cell per occupied level. A factor of 8 between
/// levels puts fences of a 1:8 range of sizes on one level: fewer levels for a query to visit, each
/// a probe into a table far larger than the caches once there are 100,000 fences. Each cell keeps
/// the reach boxes of its fences, so most non-matches are rejected with four comparisons, and the
/// audience group of each, so that a fence for other devices is never handed out at all. The cost
/// of a query depends on how many fences are near, not on how many exist.
public struct FenceIndex: Sendable {
    static let finestCellDegrees = 0.0005
    static let levelFactor = 8.0
    static let levelCount = 7

    /// A fence's reach rounded outward to Float: half the memory of Double, still conservative.
    struct Entry: Sendable {
        let slot: Int32
        /// The fence's audience group (`Audiences`); 0 for every device.
        let group: Int32
        let minLat: Float, maxLat: Float, minLon: Float, maxLon: Float

        init(slot: Int32, group: Int32, reach: BoundingBox, lonShift: Double) {
            self.slot = slot
            self.group = group
            minLat = Float(reach.minLat).nextDown
            maxLat = Float(reach.maxLat).nextUp
            minLon = Float(reach.minLon + lonShift).nextDown
            maxLon = Float(reach.maxLon + lonShift).nextUp
        }

        @inline(__always)
        func contains(lat: Float, lon: Float) -> Bool {
            lat >= minLat && lat <= maxLat && lon >= minLon && lon <= maxLon
        }
    }

    struct Level: Sendable {
        let grid: Grid
        var cells = CellTable()
        var fenceCount = 0
    }

    /// A level's cell sizes, apart from its cells: holding a copy of a whole level while its cells
    /// change would copy the cells at every change (seen: minutes for 100k fences).
    struct Grid: Sendable {
        let cellDegrees: Double
        let lonCells: Int64
        /// Longitude cells tile the globe exactly (360 / lonCells), so that the column past +180
        /// is column 0 again and no partial column hides fences across the antimeridian.
        let lonCellDegrees: Double
    }

    var levels: [Level]
    /// Levels holding at least one fence, finest first: the only ones a query visits.
    var occupiedLevels: [Int] = []
    /// Each slot's level, reach and group, by slot (the engine's slots are dense), so that `remove`
    /// finds the same cells again without a list of them kept per fence.
    private var placements: [Placement?] = []

    /// Fences held.
    public var count: Int { levels.reduce(0) { $0 + $1.fenceCount } }
    /// Bumped by every insert and remove: what was collected before may be stale.
    private(set) var version: UInt32 = 0

    struct Placement: Sendable {
        let level: Int
        let reach: BoundingBox
        let group: Int32
    }

    public init() {
        var levels: [Level] = []
        var size = Self.finestCellDegrees
        for _ in 0..<Self.levelCount {
            let lonCells = max(1, Int64((360 / size).rounded(.down)))
            levels.append(Level(grid: Grid(cellDegrees: size, lonCells: lonCells, lonCellDegrees: 360 / Double(lonCells))))
            size *= Self.levelFactor
        }
        self.levels = levels
    }

    /// Room for slots up to `slots` without growing one at a time.
    public mutating func reserveCapacity(_ slots: Int) {
        placements.reserveCapacity(slots)
    }

    /// Places fence `slot` for every device.
    public mutating func insert(_ slot: Int32, reach: BoundingBox) {
        insert(slot, reach: reach, group: Audiences.everyone)
    }

    mutating func insert(_ slot: Int32, reach: BoundingBox, group: Int32) {
        remove(slot)
        version &+= 1
        let span = max(reach.maxLat - reach.minLat, min(360, reach.maxLon - reach.minLon))
        let level = levels.firstIndex { $0.grid.cellDegrees * 3 >= span } ?? (levels.count - 1)
        Self.forEachCell(of: reach, slot: slot, group: group, grid: levels[level].grid) { key, entry in
            levels[level].cells.append(entry, to: key)
        }
        let index = Int(slot)
        if index >= placements.count { placements.append(contentsOf: repeatElement(nil, count: index - placements.count + 1)) }
        placements[index] = Placement(level: level, reach: reach, group: group)
        levels[level].fenceCount += 1
        if levels[level].fenceCount == 1 { refreshOccupied() }
    }

    public mutating func remove(_ slot: Int32) {
        let index = Int(slot)
        guard index < placements.count, let placement = placements[index] else { return }
        placements[index] = nil
        version &+= 1
        Self.forEachCell(of: placement.reach, slot: slot, group: placement.group, grid: levels[placement.level].grid) { key, _ in
            levels[placement.level].cells.remove(fence: slot, from: key)
        }
        levels[placement.level].fenceCount -= 1
        if levels[placement.level].fenceCount == 0 { refreshOccupied() }
    }

    /// Every cell of `level` that `reach` touches, with the entry that goes there. A reach wider
    /// than a level's longitudes meets the same cell twice, each time with its own turn.
    private static func forEachCell(
        of reach: BoundingBox, slot: Int32, group: Int32, grid level: Grid, _ body: (UInt64, Entry) -> Void
    ) {
        let lowY = Self.cell(reach.minLat + 90, level.cellDegrees)
        let highY = Self.cell(reach.maxLat + 90, level.cellDegrees)
        if reach.coversAllLongitudes {
            let everywhere = BoundingBox(minLat: reach.minLat, maxLat: reach.maxLat, minLon: -181, maxLon: 181)
            let entry = Entry(slot: slot, group: group, reach: everywhere, lonShift: 0)
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
                body(Self.key(x: x, y: y), Entry(slot: slot, group: group, reach: reach, lonShift: -360 * Double(turns)))
            }
        }
    }

    /// Appends the slots of fences whose reach contains the point (a superset of the fences the
    /// point is inside or within evidence distance of; callers check the exact distance), whatever
    /// their audience. A slot can appear more than once only for reaches wider than the globe's
    /// longitudes.
    public func candidates(lat: Double, lon: Double, into result: inout [Int32]) {
        candidates(lat: lat, lon: lon, everyGroup: true, groups: [], into: &result)
    }

    /// The same for one device: only fences for every device and for `groups` (sorted, as
    /// `Audiences.groups(of:)` gives them).
    func candidates(lat: Double, lon: Double, groups: [Int32], into result: inout [Int32]) {
        candidates(lat: lat, lon: lon, everyGroup: false, groups: groups, into: &result)
    }

    @inline(__always)
    private func candidates(lat: Double, lon: Double, everyGroup: Bool, groups: [Int32], into result: inout [Int32]) {
        guard lat.isFinite, lon.isFinite else { return }
        let latF = Float(lat), lonF = Float(lon)
        for levelIndex in occupiedLevels {
            let level = levels[levelIndex].grid
            let y = Int64(((lat + 90) / level.cellDegrees).rounded(.down))
            var x = Int64(((lon + 180) / level.lonCellDegrees).rounded(.down))
            if x >= level.lonCells { x -= level.lonCells }
            let cells = levels[levelIndex].cells
            let key = Self.key(x: x, y: y)
            guard cells.mayHold(key) else { continue }
            let run = cells.run(key)
            if run.isEmpty { continue }
            cells.entries.withUnsafeBufferPointer { entries in
                for i in run {
                    let entry = entries[i]
                    guard entry.contains(lat: latF, lon: lonF) else { continue }
                    if everyGroup || entry.group == Audiences.everyone || groups.contains(entry.group) { result.append(entry.slot) }
                }
            }
        }
    }

    /// The region around a point where every level's cell is the point's: points in it have the
    /// same candidates among the entries of those cells.
    struct CellBox: Sendable {
        var minLat: Double, maxLat: Double, minLon: Double, maxLon: Double

        @inline(__always)
        func contains(lat: Double, lon: Double) -> Bool {
            lat >= minLat && lat < maxLat && lon >= minLon && lon < maxLon
        }
    }

    /// One level's lookup in `collect`, filled in a step at a time for every level.
    private struct Lookup {
        let level: Int
        let key: UInt64
        let mayHold: Bool
        var index = 0
        var first = CellTable.Slot(key: 0, start: 0, count: 0, capacity: 0)
        var run = 0..<0
        var firstEntry: Entry?
    }

    /// Appends to `pool` the entries for `groups` of the cells the point is in, at every occupied
    /// level, that reach into the region where all those cells overlap, and returns that region.
    ///
    /// With 100,000 fences a level's filter word, its cell's slot and the cell's entries are each a
    /// cache miss, and each needs the one before. Read level after level, a query waited for three
    /// misses per level in a row (perf: 83% of this function's samples on those three loads). Each
    /// step is taken for every level before the next step, so that the levels' misses are in flight
    /// together.
    func collect(lat: Double, lon: Double, everyGroup: Bool, groups: [Int32], into pool: inout [Entry]) -> CellBox {
        var box = CellBox(minLat: -.infinity, maxLat: .infinity, minLon: -.infinity, maxLon: .infinity)
        guard lat.isFinite, lon.isFinite else { return CellBox(minLat: 0, maxLat: 0, minLon: 0, maxLon: 0) }
        let first = pool.count
        withUnsafeTemporaryAllocation(of: Lookup.self, capacity: occupiedLevels.count) { lookups in
            var count = 0
            for levelIndex in occupiedLevels {
                let level = levels[levelIndex].grid
                let y = Int64(((lat + 90) / level.cellDegrees).rounded(.down))
                let rawX = Int64(((lon + 180) / level.lonCellDegrees).rounded(.down))
                let x = rawX >= level.lonCells ? rawX - level.lonCells : rawX
                box.minLat = max(box.minLat, Double(y) * level.cellDegrees - 90)
                box.maxLat = min(box.maxLat, Double(y + 1) * level.cellDegrees - 90)
                box.minLon = max(box.minLon, Double(rawX) * level.lonCellDegrees - 180)
                box.maxLon = min(box.maxLon, Double(rawX + 1) * level.lonCellDegrees - 180)
                let key = Self.key(x: x, y: y)
                lookups.initializeElement(at: count, to: Lookup(level: levelIndex, key: key, mayHold: levels[levelIndex].cells.mayHold(key)))
                count += 1
            }
            for k in 0..<count where lookups[k].mayHold {
                (lookups[k].index, lookups[k].first) = levels[lookups[k].level].cells.firstSlot(lookups[k].key)
            }
            for k in 0..<count where lookups[k].mayHold {
                let cells = levels[lookups[k].level].cells
                let run = cells.run(lookups[k].key, from: lookups[k].index, first: lookups[k].first)
                lookups[k].run = run
                if !run.isEmpty { lookups[k].firstEntry = cells.entries[run.lowerBound] }
            }
            for k in 0..<count {
                guard let firstEntry = lookups[k].firstEntry else { continue }
                let cells = levels[lookups[k].level].cells
                var entry = firstEntry
                var i = lookups[k].run.lowerBound
                while true {
                    if everyGroup || entry.group == Audiences.everyone || groups.contains(entry.group) { pool.append(entry) }
                    i += 1
                    if i == lookups[k].run.upperBound { break }
                    entry = cells.entries[i]
                }
            }
            lookups.baseAddress!.deinitialize(count: count)
        }
        // Only the entries that reach into the box can hold a point of it.
        let (minLat, maxLat) = (Float(box.minLat).nextDown, Float(box.maxLat).nextUp)
        let (minLon, maxLon) = (Float(box.minLon).nextDown, Float(box.maxLon).nextUp)
        var kept = first
        for i in first..<pool.count {
            let e = pool[i]
            if e.maxLat >= minLat && e.minLat <= maxLat && e.maxLon >= minLon && e.minLon <= maxLon {
                pool[kept] = e
                kept += 1
            }
        }
        pool.removeLast(pool.count - kept)
        return box
    }

    private mutating func refreshOccupied() {
        occupiedLevels = levels.indices.filter { levels[$0].fenceCount > 0 }
    }

    private static func cell(_ degreesFromOrigin: Double, _ size: Double) -> Int64 {
        Int64((degreesFromOrigin / size).rounded(.down))
    }

    @inline(__always)
    private static func key(x: Int64, y: Int64) -> UInt64 {
        UInt64(truncatingIfNeeded: x) << 32 | UInt64(truncatingIfNeeded: y)
    }
}
