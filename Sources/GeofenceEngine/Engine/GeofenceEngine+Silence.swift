/// docs/rules.md "The rules": a device that falls silent is taken to have stayed where it was.
extension GeofenceEngine {
    /// Confirms pending changes of devices silent for `silent_confirm_s` of wall-clock time, as
    /// of `now` (the same clock as the samples' `arrival`). Returns the devices whose inside set
    /// changed, and appends the alerts (and the events of the tours their enters visit) to
    /// `transitions`. A fence whose `expires_at` has passed confirms nothing.
    @discardableResult
    public mutating func tick(now: Double, into transitions: inout [Transition]) -> [StateChange] {
        var changed: [StateChange] = []
        for deviceSlot in devicesAwaitingSilence.sorted() {
            let recordIndex = devices.record[Int(deviceSlot)]
            guard recordIndex >= 0, now - records[recordIndex].lastArrival >= settings.silentConfirmSeconds else { continue }
            var record = records.take(recordIndex)
            var position = 0
            var change: StateChange?
            let firstNewTransition = transitions.endIndex
            while position < record.entries.count {
                var entry = record.entries[position]
                if let pending = entry.pending, let since = pending.evidenceSince,
                    let fence = fenceSlots[Int(entry.fenceSlot)], (fence.definition.expiresAt ?? .infinity) > now
                {
                    // A change a late sample's merge left waiting is confirmed where its backlog did.
                    let confirmedAt = pending.confirmer?.timestamp ?? since + settings.debounceSeconds
                    let (lat, lon) = pending.confirmer.map { ($0.lat, $0.lon) } ?? (pending.lat, pending.lon)
                    confirm(&entry, fence: fence, device: deviceSlot, confirmedAt: confirmedAt,
                            lat: lat, lon: lon, &transitions)
                    markAlerted(fence: entry.fenceSlot, at: confirmedAt, device: deviceSlot)
                    if confirmedAt >= change?.at ?? -.infinity {
                        change = StateChange(device: devices.ids[Int(deviceSlot)], at: confirmedAt, lat: lat, lon: lon)
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
    }
}
