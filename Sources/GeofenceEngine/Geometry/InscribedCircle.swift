/// The radius of the largest circle that fits inside a polygon (its pole of inaccessibility),
/// found by a best-first search over square cells: a cell whose centre is `d` inside can hold no
/// point deeper than `d` plus half its diagonal, so cells that cannot beat the best found so far
/// by more than `precision` are dropped. The result never exceeds the true radius. The search
/// measures at most `maxCells` cells, then keeps the best found: a sliver thousands of
/// kilometres long and metres wide is deep along its whole spine and would otherwise be
/// searched for minutes, holding up the fence's `set` (docs/rules.md "The rules").
enum InscribedCircle {
    static let maxCells = 20_000

    /// `signedDistance(x, y)` is positive inside, in the same units as the box.
    static func radius(
        minX: Double, maxX: Double, minY: Double, maxY: Double, centroid: (x: Double, y: Double),
        precision: Double, signedDistance: (Double, Double) -> Double
    ) -> Double {
        let width = maxX - minX, height = maxY - minY
        guard min(width, height) > 0 else { return 0 }
        // Square cells on the short side, but never more than 64 along the long side: a sliver
        // kilometres long and millimetres wide would otherwise start with millions of cells.
        let cellSize = max(min(width, height), max(width, height) / 64)
        var best = max(0, signedDistance(centroid.x, centroid.y))
        var queue = CellQueue()
        var measured = 0
        func push(_ x: Double, _ y: Double, _ half: Double) {
            let d = signedDistance(x, y)
            measured += 1
            queue.push(Cell(x: x, y: y, half: half, distance: d))
        }
        var y = minY
        while y < maxY {
            var x = minX
            while x < maxX {
                push(x + cellSize / 2, y + cellSize / 2, cellSize / 2)
                x += cellSize
            }
            y += cellSize
        }
        while measured < maxCells, let cell = queue.pop() {
            best = max(best, cell.distance)
            if cell.potential - best <= precision { continue }
            let half = cell.half / 2
            push(cell.x - half, cell.y - half, half)
            push(cell.x + half, cell.y - half, half)
            push(cell.x - half, cell.y + half, half)
            push(cell.x + half, cell.y + half, half)
        }
        return best
    }

    struct Cell {
        var x: Double
        var y: Double
        var half: Double
        var distance: Double
        /// The deepest any point of the cell can be.
        var potential: Double { distance + half * 2.0.squareRoot() }
    }

    /// A binary max-heap on `potential`: the most promising cell first.
    struct CellQueue {
        private var cells: [Cell] = []

        mutating func push(_ cell: Cell) {
            cells.append(cell)
            var child = cells.count - 1
            while child > 0 {
                let parent = (child - 1) / 2
                guard cells[parent].potential < cells[child].potential else { break }
                cells.swapAt(parent, child)
                child = parent
            }
        }

        mutating func pop() -> Cell? {
            guard !cells.isEmpty else { return nil }
            cells.swapAt(0, cells.count - 1)
            let top = cells.removeLast()
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var largest = parent
                if left < cells.count, cells[left].potential > cells[largest].potential { largest = left }
                if right < cells.count, cells[right].potential > cells[largest].potential { largest = right }
                if largest == parent { break }
                cells.swapAt(parent, largest)
                parent = largest
            }
            return top
        }
    }
}
