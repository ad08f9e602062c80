/// The sparse part of devices: their non-default regions and their tour progress, in one array
/// with a free list, reached from `DeviceTable.record`. A device outside everything has none,
/// and reaching one costs no hashing.
struct DeviceRecords: Sendable {
    private(set) var items: [DeviceRegions] = []
    private var free: [Int32] = []

    subscript(index: Int32) -> DeviceRegions {
        get { items[Int(index)] }
        set { items[Int(index)] = newValue }
    }

    /// Takes record `index` out, leaving an empty one in its place, so that the caller owns its
    /// arrays alone and changes them without copying.
    mutating func take(_ index: Int32) -> DeviceRegions {
        var taken = DeviceRegions(device: items[Int(index)].device, lastArrival: 0)
        swap(&taken, &items[Int(index)])
        return taken
    }

    mutating func add(_ record: DeviceRegions) -> Int32 {
        if let index = free.popLast() {
            items[Int(index)] = record
            return index
        }
        items.append(record)
        return Int32(items.count - 1)
    }

    mutating func remove(_ index: Int32) {
        items[Int(index)] = DeviceRegions(device: -1, lastArrival: 0)
        free.append(index)
    }

    /// The indexes of the records in use, in order.
    var indicesInUse: [Int32] {
        items.indices.compactMap { items[$0].device >= 0 ? Int32($0) : nil }
    }
}
