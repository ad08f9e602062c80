/// A device's place in the engine: looking a device up once and reusing the handle saves hashing
/// its id for every sample.
public struct DeviceHandle: Sendable, Hashable {
    let slot: Int32
}

/// Per-device columns. Parallel arrays keep a device that is outside everything down to a few
/// scalars, with no allocation of its own.
struct DeviceTable: Sendable {
    var ids: [String] = []
    var slots: [String: Int32] = [:]
    var lastTimestamp: [Double] = []
    /// The last accurate sample, the old-side anchor for interpolating crossings.
    var anchorTime: [Double] = []
    var anchorLat: [Double] = []
    var anchorLon: [Double] = []
    var seq: [UInt64] = []
    /// Fences with a generation above this were added after the device's last evaluated sample.
    var knownGeneration: [UInt32] = []

    var count: Int { ids.count }

    mutating func handle(for id: String) -> DeviceHandle {
        if let slot = slots[id] { return DeviceHandle(slot: slot) }
        let slot = Int32(ids.count)
        ids.append(id)
        slots[id] = slot
        lastTimestamp.append(-.infinity)
        anchorTime.append(.nan)
        anchorLat.append(.nan)
        anchorLon.append(.nan)
        seq.append(0)
        knownGeneration.append(0)
        return DeviceHandle(slot: slot)
    }
}
