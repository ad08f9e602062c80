/// The sparse part of devices: their non-default regions and their tour progress, in one array
/// with a free list, reached from `DeviceTable.record`. A device outside everything has none,
/// and reaching one costs no hashing.
typealias DeviceRecords = FreeListArray<DeviceRegions>

extension FreeListArray where Item == DeviceRegions {
    /// A freed place holds a record of device -1, which `indicesInUse` passes over.
    init() {
        self.init(vacant: DeviceRegions(device: -1, lastArrival: 0))
    }

    /// Takes record `index` out, leaving an empty one of the same device in its place.
    mutating func take(_ index: Int32) -> DeviceRegions {
        take(index, leaving: DeviceRegions(device: items[Int(index)].device, lastArrival: 0))
    }

    /// The indexes of the records in use, in order.
    var indicesInUse: [Int32] {
        items.indices.compactMap { items[$0].device >= 0 ? Int32($0) : nil }
    }
}
