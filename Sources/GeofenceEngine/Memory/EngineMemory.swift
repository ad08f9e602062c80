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
}

/// A count of ``EngineMemory`` made a slice at a time (`GeofenceEngine.countMemory`), so that the
/// caller never walks a million devices in one hold of its lock. What changes between slices is
/// counted as it is when its turn comes: a figure, not a snapshot.
public struct EngineMemoryCount: Sendable {
    public fileprivate(set) var memory = EngineMemory()
    /// The next device place to count; -1 before the columns are.
    fileprivate var next = -1

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
            count.memory.devices += AllocatedBytes.string(devices.ids[slot]) + AllocatedBytes.array(devices.groups(of: slot))
            let record = self.record(of: Int32(slot))
            if let record { count.memory.regions += record.allocatedBytes }
            let history = devices.history[slot]
            if history >= 0 {
                count.memory.heldSamples += histories[history].allocatedBytes
            }
        }
        count.next = end == devices.ids.count ? .max : end
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
            + AllocatedBytes.array(history) + AllocatedBytes.array(firstSpeed) + AllocatedBytes.array(firstEpoch)
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
    /// The samples and what each holds. Each sample's regions before it are a buffer of their own:
    /// the engine changes the device's regions at every sample it judges, which copies them away
    /// from the snapshot the sample keeps (checked on held samples inside and near fences). A box
    /// a snapshot still shares with the record is counted in both: an upper bound.
    var allocatedBytes: Int {
        var bytes = AllocatedBytes.array(held) + timesBytes
        for sample in held {
            bytes += AllocatedBytes.array(sample.alerted) + AllocatedBytes.array(sample.before)
            for entry in sample.before { bytes += entry.boxBytes }
        }
        return bytes
    }
}
