/// docs/rules.md "The rules": a device that falls silent is taken to have stayed where it was.
extension GeofenceEngine {
    /// Confirms pending changes of devices silent for `silent_confirm_s` of wall-clock time, as
    /// of `now` (the same clock as the samples' `arrival`). Returns the devices whose inside set
    /// changed, and appends the alerts (and the events of the tours their enters visit) to
    /// `transitions`. A fence whose `expires_at` has passed confirms nothing.
    @discardableResult
    public mutating func tick(now: Double, into transitions: inout [Transition]) -> [StateChange] {
        // Backlogs that ended first: what they leave pending is then judged by silence as well.
        mergedBacklogs.removeAll(keepingCapacity: true)
        var changed = mergeBacklogs(quietFor: settings.silentConfirmSeconds, now: now, into: &transitions)
        releaseQuietOlderParts(now: now)
        // Filtered to those due, then sorted by slot: sorting all that await silence every tick
        // was 0.85% of the soak's samples, under the core's lock, for the few that are due.
        let due = devicesAwaitingSilence.filter { deviceSlot in
            let recordIndex = devices.record[Int(deviceSlot)]
            return recordIndex >= 0 && now - records[recordIndex].lastArrival >= settings.silentConfirmSeconds
                && !devicesWithOpenBacklog.contains(deviceSlot)
        }
        for deviceSlot in due.sorted() {
            var record = records.take(devices.record[Int(deviceSlot)])
            var position = 0
            var change: StateChange?
            let firstNewTransition = transitions.endIndex
            while position < record.entries.count {
                var entry = record.entries[position]
                // Not confirmed at or after the fence's expiry, by the wall clock or in event time.
                if let pending = entry.pending, let since = pending.evidenceSince,
                    let fence = fenceSlots[Int(entry.fenceSlot)],
                    (fence.definition.expiresAt ?? .infinity) > max(now, since + settings.debounceSeconds)
                {
                    let confirmedAt = since + settings.debounceSeconds
                    confirm(&entry, fence: fence, device: deviceSlot, confirmedAt: confirmedAt,
                            lat: pending.lat, lon: pending.lon, &transitions)
                    markAlerted(fence: entry.fenceSlot, at: confirmedAt, device: deviceSlot)
                    if confirmedAt >= change?.at ?? -.infinity {
                        change = StateChange(device: devices.ids[Int(deviceSlot)], at: confirmedAt, lat: pending.lat, lon: pending.lon)
                    }
                }
                if entry.isDefault {
                    record.entries.remove(at: position)
                } else {
                    record.entries[position] = entry
                    position += 1
                }
            }
            _ = finishStep(&record, device: deviceSlot, from: firstNewTransition, &transitions)
            putBack(record, for: deviceSlot)
            if let change { changed.append(change) }
        }
        return changed
    }

    /// Moves the silence clock of every device awaiting silence on by `seconds`: a time in which
    /// the service could not hear anyone (its broker connection down) is not the devices' silence.
    public mutating func postponeSilence(by seconds: Double) {
        guard seconds > 0 else { return }
        for deviceSlot in devicesAwaitingSilence {
            let recordIndex = devices.record[Int(deviceSlot)]
            if recordIndex >= 0 { records[recordIndex].lastArrival += seconds }
        }
        for deviceSlot in devicesWithOpenBacklog {
            let index = devices.history[Int(deviceSlot)]
            if index >= 0 { histories.modify(index) { $0.postponeLateArrival(by: seconds) } }
        }
    }
}
