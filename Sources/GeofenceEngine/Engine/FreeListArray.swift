/// Items in one array with a free list, each reached by an `Int32` index that a `DeviceTable` column
/// keeps: reaching one costs no hashing, and a freed place is reused before the array grows.
/// The engine's sparse device records and held sample histories are both kept this way.
struct FreeListArray<Item: Sendable>: Sendable {
    private(set) var items: [Item] = []
    private var free: [Int32] = []
    /// What a freed place holds until it is reused.
    private let vacant: Item

    init(vacant: Item) {
        self.vacant = vacant
    }

    /// The items' and the free list's allocations, not what the items hold (``AllocatedBytes``).
    var allocatedBytes: Int { AllocatedBytes.array(items) + AllocatedBytes.array(free) }

    subscript(index: Int32) -> Item {
        get { items[Int(index)] }
        set { items[Int(index)] = newValue }
    }

    /// Takes item `index` out, leaving `placeholder` in its place, so that the caller owns the item's
    /// arrays alone and changes them without copying.
    mutating func take(_ index: Int32, leaving placeholder: Item) -> Item {
        var taken = placeholder
        swap(&taken, &items[Int(index)])
        return taken
    }

    /// Changes item `index` in place (a subscript's get and set would copy its arrays).
    mutating func modify<R>(_ index: Int32, _ body: (inout Item) -> R) -> R {
        body(&items[Int(index)])
    }

    mutating func add(_ item: Item) -> Int32 {
        if let index = free.popLast() {
            items[Int(index)] = item
            return index
        }
        items.append(item)
        return Int32(items.count - 1)
    }

    mutating func remove(_ index: Int32) {
        items[Int(index)] = vacant
        free.append(index)
    }
}
