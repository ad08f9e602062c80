import GeofenceEngine

/// Devices marked for a later step (their record or clock journaled, their view refreshed), by
/// their place in the engine: a flag per place and the places in the order marked. Sets of ids
/// hashed every device's id at every position, and each was looked up again by id when taken
/// (perf, the soak at 45,000 positions/s: 4.5% of the service's samples in taking the read
/// side's views under the core's lock, 3.7% of them the lookups; inserting into the sets 2.9%).
///
/// A forget takes the device's marks off before its place is freed, but places already taken
/// (a slice not yet copied) may outlive it: such a place then stands for the device given it
/// since, or for nobody (`GeofenceEngine.holds`). Either way what is copied is a device's state
/// as it is now, under its own id, never an older one.
struct DeviceMarks {
    private var marked: [Bool] = []
    /// The places marked, in order; also some unmarked since, which `take` skips.
    private var order: [DeviceHandle] = []

    mutating func mark(_ device: DeviceHandle) {
        let index = device.index
        if index >= marked.count {
            // Grown as the engine's table grows, by doubling.
            marked.append(contentsOf: repeatElement(false, count: max(index + 1, 2 * marked.count) - marked.count))
        }
        guard !marked[index] else { return }
        marked[index] = true
        order.append(device)
    }

    /// Takes the mark off one device (its state went out another way); whether it had one.
    @discardableResult
    mutating func unmark(_ device: DeviceHandle) -> Bool {
        guard device.index < marked.count, marked[device.index] else { return false }
        // Left in `order`: `take` skips it unless it is marked again.
        marked[device.index] = false
        return true
    }

    /// The two arrays' heap (``AllocatedBytes``).
    var allocatedBytes: Int { AllocatedBytes.array(marked) + AllocatedBytes.array(order) }

    func contains(_ device: DeviceHandle) -> Bool { device.index < marked.count && marked[device.index] }

    /// Every marked device, once each, in the order marked; the marks are cleared. Not keeping
    /// capacity: after a burst of a million new devices the list would stay that large for good.
    mutating func take() -> [DeviceHandle] {
        var taken: [DeviceHandle] = []
        taken.reserveCapacity(order.count)
        for device in order where marked[device.index] {
            marked[device.index] = false
            taken.append(device)
        }
        order = []
        return taken
    }
}
