/// What the engine holds for its devices, in bytes by part, counted from its arrays' capacities and
/// its boxes (``AllocatedBytes``). Fences, tours and the spatial index are not in it: they do not
/// grow with devices. `GET /api/memory` (docs/http.md "Memory") and fleetbench's scale phase print it.
public struct EngineMemory: Sendable, Equatable {
    /// Each device's columns and id, the index of ids, audience groups, candidate caches, and the
    /// set of devices waiting for silence.
    public var devices = 0
    /// The regions and tour progress of devices that have any (`DeviceRecords`), with the boxes of
    /// pending changes and speeding runs.
    public var regions = 0
    /// What devices hold for merging late samples (docs/rules.md "Late samples"): the histories,
    /// their samples, each sample's regions before it and the alerts it confirmed, and the sets of
    /// devices with a backlog open or an older part kept.
    public var heldSamples = 0

    public init() {}

    public var total: Int { devices + regions + heldSamples }
}

/// A count of ``EngineMemory`` made a slice at a time (`GeofenceEngine.countMemory`), so that the
/// caller never walks a million devices in one hold of its lock. What changes between slices is
/// counted as it is when its turn comes: a figure, not a snapshot.
public struct EngineMemoryCount: Sendable {
    public fileprivate(set) var memory = EngineMemory()
    /// The next device place to count; -1 before the columns are.
    fileprivate var next = -1
    /// The buffers and boxes met in one device's history, kept from device to device so that the
    /// count allocates nothing per device under the caller's lock.
    fileprivate var seen = SharedStorage()

    public var isComplete: Bool { next == .max }

    public init() {}
}

extension GeofenceEngine {
    /// Counts up to `limit` more devices into `count`, each with its record and its history (the
    /// columns, one allocation each, at the first call). A device with neither costs a read of
    /// four columns; one with a record or a history a cache miss or two to read their arrays'
    /// capacities.
    public func countMemory(_ count: inout EngineMemoryCount, limit: Int) {
        guard !count.isComplete else { return }
        if count.next < 0 {
            count.memory.devices += devices.columnBytes + candidateCaches.allocatedBytes
                + AllocatedBytes.set(devicesAwaitingSilence)
            count.memory.regions += records.allocatedBytes
            count.memory.heldSamples += histories.allocatedBytes + AllocatedBytes.set(devicesWithOpenBacklog)
                + AllocatedBytes.set(devicesKeepingAnOlderPart)
            count.next = 0
        }
        let start = min(count.next, devices.ids.count)
        let end = start + min(devices.ids.count - start, max(1, limit))
        for slot in start..<end {
            count.memory.devices += AllocatedBytes.string(devices.ids[slot]) + AllocatedBytes.array(devices.groups[slot])
            let record = self.record(of: Int32(slot))
            if let record { count.memory.regions += record.allocatedBytes }
            let history = devices.history[slot]
            if history >= 0 {
                count.memory.heldSamples += histories[history].allocatedBytes(
                    sharingWith: record?.entries ?? [], seen: &count.seen)
            }
        }
        count.next = end == devices.ids.count ? .max : end
    }
}

/// Buffers and boxes already counted for one device: copies of its regions share them until
/// either changes (copy on write).
struct SharedStorage: Sendable {
    // Addresses compared, never followed: kept as integers.
    var buffers: [UInt] = []
    var boxes: [ObjectIdentifier] = []

    mutating func reset() {
        buffers.removeAll(keepingCapacity: true)
        boxes.removeAll(keepingCapacity: true)
    }

    /// Whether `entries`' buffer is met for the first time (empty arrays share one, which holds
    /// nothing to count).
    mutating func isNew(_ entries: [RegionEntry]) -> Bool {
        guard entries.capacity > 0,
              let address = entries.withUnsafeBufferPointer({ $0.baseAddress.map { UInt(bitPattern: $0) } }),
              !buffers.contains(address)
        else { return false }
        buffers.append(address)
        return true
    }

    /// The bytes of the boxes among `entries` not met before.
    mutating func newBoxBytes(_ entries: [RegionEntry]) -> Int {
        var bytes = 0
        for entry in entries {
            guard let box = entry.boxIdentity, !boxes.contains(box) else { continue }
            boxes.append(box)
            bytes += entry.boxBytes
        }
        return bytes
    }
}

extension DeviceTable {
    /// The columns, the index of ids and the free places: one allocation each.
    var columnBytes: Int {
        AllocatedBytes.array(ids) + index.allocatedBytes + AllocatedBytes.array(freeSlots)
            + AllocatedBytes.array(lastTimestamp) + AllocatedBytes.array(anchorTime) + AllocatedBytes.array(anchorLat)
            + AllocatedBytes.array(anchorLon) + AllocatedBytes.array(anchorAccuracy) + AllocatedBytes.array(seq)
            + AllocatedBytes.array(knownGeneration) + AllocatedBytes.array(lastHeard) + AllocatedBytes.array(record)
            + AllocatedBytes.array(groups) + AllocatedBytes.array(groupsVersion) + AllocatedBytes.array(live)
            + AllocatedBytes.array(history) + AllocatedBytes.array(firstFix)
    }
}

extension DeviceRegions {
    /// The record's arrays and what they box (its place in `DeviceRecords` is counted there).
    var allocatedBytes: Int {
        var bytes = AllocatedBytes.array(entries) + AllocatedBytes.array(tours)
        for entry in entries { bytes += entry.boxBytes }
        for tour in tours {
            bytes += AllocatedBytes.array(tour.visited) + AllocatedBytes.array(tour.skipped)
        }
        return bytes
    }
}

extension SampleHistory {
    /// The samples and what each holds. A sample's regions before it share their buffer, and
    /// their entries' boxes, with the sample before it or with the device's record until either
    /// changes: counted once, the record's with the record.
    func allocatedBytes(sharingWith current: [RegionEntry], seen: inout SharedStorage) -> Int {
        var bytes = AllocatedBytes.array(held)
        seen.reset()
        _ = seen.isNew(current)
        _ = seen.newBoxBytes(current)
        for sample in held {
            bytes += AllocatedBytes.array(sample.alerted)
            guard seen.isNew(sample.before) else { continue }
            bytes += AllocatedBytes.array(sample.before) + seen.newBoxBytes(sample.before)
        }
        return bytes
    }
}
