/// Reaching and storing a device's sparse record, its audience groups, and the end of a device's
/// step (its alerts in order, then its tours' events).
extension GeofenceEngine {
    /// The device's record taken out of the pool for changing (a new one when it has none).
    mutating func takeRecord(of deviceSlot: Int32, arrival: Double) -> DeviceRegions {
        let index = devices.record[Int(deviceSlot)]
        return index < 0 ? DeviceRegions(device: deviceSlot, lastArrival: arrival) : records.take(index)
    }

    /// Rule 1, then the record a sample changes, for an in-order and a late sample alike: `nil` (and
    /// counted) when the sample is less accurate than the limit and so says nothing to any fence; else
    /// the device's record taken out, its groups refreshed first, last heard at `arrival`.
    @inline(__always)
    mutating func takeRecord(ifAccurate sample: PositionSample, of deviceSlot: Int32, arrival: Double) -> DeviceRegions? {
        if let accuracy = sample.accuracy, accuracy > settings.maxAccuracyMeters {
            counters.inaccurate += 1
            return nil
        }
        if audiences.hasTargetedGroups { refreshGroups(of: deviceSlot) }
        var record = takeRecord(of: deviceSlot, arrival: arrival)
        record.lastArrival = arrival
        return record
    }

    /// Puts a record taken with `takeRecord` back, or drops it when nothing in it differs from the
    /// default, and keeps the set of devices silence can confirm in step.
    mutating func putBack(_ record: DeviceRegions, for deviceSlot: Int32) {
        var record = record
        let device = Int(deviceSlot)
        let index = devices.record[device]
        let awaiting = record.hasEvidencePending
        if awaiting != record.awaitingSilence {
            if awaiting { devicesAwaitingSilence.insert(deviceSlot) } else { devicesAwaitingSilence.remove(deviceSlot) }
            record.awaitingSilence = awaiting
        }
        if record.isEmpty {
            if index >= 0 {
                records.remove(index)
                devices.record[device] = -1
            }
        } else if index >= 0 {
            records[index] = record
        } else {
            devices.record[device] = records.add(record)
        }
    }

    /// Finds the device's audience groups again if the set of groups changed since it last did.
    mutating func refreshGroups(of deviceSlot: Int32) {
        let device = Int(deviceSlot)
        guard devices.groupsVersion(of: device) != audiences.version else { return }
        let groups = audiences.groups(of: devices.ids[device])
        if groups != devices.groups(of: device) { candidateCaches.dropEntries(device) }
        devices.setGroups(groups, version: audiences.version, of: device)
    }

    /// Whether the device belongs to `group` (its groups refreshed first).
    mutating func device(_ deviceSlot: Int32, isIn group: Int32) -> Bool {
        if group == Audiences.everyone { return true }
        refreshGroups(of: deviceSlot)
        return Audiences.contains(devices.groups(of: Int(deviceSlot)), group)
    }

    /// Ends one device's step: its fence alerts in order, then the events of the tours its confirmed
    /// enters visit, numbered after them. Returns whether tour progress changed.
    mutating func finishStep(
        _ record: inout DeviceRegions, device deviceSlot: Int32, from start: Int, _ transitions: inout [Transition]
    ) -> Bool {
        orderBySequence(&transitions, from: start)
        guard !enteredScratch.isEmpty else { return false }
        defer { enteredScratch.removeAll(keepingCapacity: true) }
        return visitTours(&record, device: deviceSlot, &transitions)
    }
}
