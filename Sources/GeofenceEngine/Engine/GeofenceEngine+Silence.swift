/// Rule 2's second half: a device that falls silent is taken to have stayed where it was.
extension GeofenceEngine {
    /// Confirms pending changes of devices silent for `silent_confirm_s` of wall-clock time, as
    /// of `now` (the same clock as the samples' `arrival`). Returns the devices whose inside set
    /// changed, and appends the alerts to `transitions`.
    @discardableResult
    public mutating func tick(now: Double, into transitions: inout [Transition]) -> [String] {
        var changed: [String] = []
        for deviceSlot in devicesAwaitingSilence.sorted() {
            guard var record = regions[deviceSlot], now - record.lastArrival >= settings.silentConfirmSeconds else {
                continue
            }
            var position = 0
            var didChange = false
            let firstNewTransition = transitions.endIndex
            while position < record.entries.count {
                var entry = record.entries[position]
                if let pending = entry.pending, let since = pending.evidenceSince,
                    let fence = fenceSlots[Int(entry.fenceSlot)]
                {
                    confirm(&entry, fence: fence, device: deviceSlot, confirmedAt: since + settings.debounceSeconds,
                            lat: pending.lat, lon: pending.lon, &transitions)
                    didChange = true
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
            if didChange { changed.append(devices.ids[Int(deviceSlot)]) }
        }
        return changed
    }
}
