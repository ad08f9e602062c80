/// Rule 2's second half: a device that falls silent is taken to have stayed where it was.
extension GeofenceEngine {
    /// Confirms pending changes of devices silent for `silent_confirm_s` of wall-clock time, as
    /// of `now` (the same clock as the samples' `arrival`). Returns the devices whose inside set
    /// changed, and appends the alerts to `transitions`.
    @discardableResult
    public mutating func tick(now: Double, into transitions: inout [Transition]) -> [StateChange] {
        var changed: [StateChange] = []
        for deviceSlot in devicesAwaitingSilence.sorted() {
            guard var record = regions[deviceSlot], now - record.lastArrival >= settings.silentConfirmSeconds else {
                continue
            }
            var position = 0
            var change: StateChange?
            let firstNewTransition = transitions.endIndex
            while position < record.entries.count {
                var entry = record.entries[position]
                if let pending = entry.pending, let since = pending.evidenceSince,
                    let fence = fenceSlots[Int(entry.fenceSlot)]
                {
                    let confirmedAt = since + settings.debounceSeconds
                    confirm(&entry, fence: fence, device: deviceSlot, confirmedAt: confirmedAt,
                            lat: pending.lat, lon: pending.lon, &transitions)
                    if confirmedAt >= change?.at ?? -.infinity {
                        change = StateChange(
                            device: devices.ids[Int(deviceSlot)], at: confirmedAt, lat: pending.lat, lon: pending.lon)
                    }
                }
                if entry.isDefault {
                    record.entries.remove(at: position)
                } else {
                    record.entries[position] = entry
                    position += 1
                }
            }
            store(record, for: deviceSlot)
            orderBySequence(&transitions, from: firstNewTransition)
            if let change { changed.append(change) }
        }
        return changed
    }
}
