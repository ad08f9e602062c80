/// Adding, replacing and removing fences at run time (docs/topics-and-payloads.md "Fences").
extension GeofenceEngine {
    /// What setting a fence did.
    public struct FenceUpdate: Sendable {
        public var fence: Fence
        /// A fence with the same id was replaced; device state at it is kept.
        public var replaced: Bool
        /// The definition was identical to the one held: nothing changed.
        public var unchanged: Bool
        /// `exit` alerts with reason `unassigned` for devices inside that the new `devices` no
        /// longer matches, in device order.
        public var transitions: [Transition] = []
        /// Devices whose set of inside fences changed, with the time and place of the change.
        public var changes: [StateChange] = []
        /// Devices whose durable state changed (their records should be journaled).
        public var changedDevices: [String] = []
    }

    /// What removing (or expiring) fences did.
    public struct FenceRemoval: Sendable {
        /// The ids of the fences removed.
        public var fences: [String] = []
        /// `exit` alerts with reason `fence_removed` (or `fence_expired`) for devices that were inside.
        public var transitions: [Transition] = []
        /// Devices whose set of inside fences changed, with the time and place of the change.
        public var changes: [StateChange] = []
        public var changedDevices: [String] { changes.map(\.device) }
    }

    /// Makes room for `count` fences in all, so that loading a large file does not grow (and
    /// rehash) the fence tables step by step.
    public mutating func reserveFences(_ count: Int) {
        fenceSlots.reserveCapacity(count)
        fenceProbes.reserveCapacity(count)
        fenceGenerations.reserveCapacity(count)
        fenceGroups.reserveCapacity(count)
        slotsByFenceID.reserveCapacity(count)
        index.reserveCapacity(count)
    }

    /// Adds `definition`, or replaces the fence with its id. A new fence starts unknown for every
    /// device (first sight: silent); a replaced one keeps each device's state, and the next samples
    /// are judged against the new shape. A replace that changes `devices` exits the devices inside
    /// that it no longer matches (reason `unassigned`), drops their other state at the fence, and is
    /// first sight for the devices without state at it. `now`: the caller's clock, the time of
    /// such exits (never before a device's latest event time).
    @discardableResult
    public mutating func setFence(_ definition: FenceDefinition, now: Double = -.infinity) throws(FenceError) -> FenceUpdate {
        insert(try Fence(definition: definition, settings: settings), now: now)
    }

    /// The same with a fence built beforehand, so that validation and geometry (a polygon's
    /// inscribed circle) can run outside whatever guards the engine, and in parallel. A fence
    /// clamped with other radius limits than this engine's is built again.
    @discardableResult
    public mutating func setFence(_ fence: Fence, now: Double = -.infinity) throws(FenceError) -> FenceUpdate {
        insert(fence.isBuilt(with: settings) ? fence : try Fence(definition: fence.definition, settings: settings), now: now)
    }

    private mutating func insert(_ fence: Fence, now: Double) -> FenceUpdate {
        let definition = fence.definition
        let key = ExactID(definition.id)
        if let slot = slotsByFenceID[key], let old = fenceSlots[Int(slot)] {
            // The same definition again (a reloaded file, a repeated set): nothing to place anew,
            // and every device's kept candidates stay good.
            if old.definition == definition { return FenceUpdate(fence: old, replaced: true, unchanged: true) }
            var update = FenceUpdate(fence: fence, replaced: true, unchanged: false)
            mergeJoinedBacklogs(into: &update.transitions, changes: &update.changes)
            // Other devices may move the fence epoch: backlogs held are merged under the old fence.
            if definition.devices != old.definition.devices {
                mergeBacklogsBeforeEpochChange(into: &update.transitions, changes: &update.changes)
            }
            let oldGroup = fenceGroups[Int(slot)]
            let group = audiences.acquire(definition.devices)
            audiences.release(oldGroup)
            place(fence, in: slot, group: group)
            if group != oldGroup {
                fenceEpoch &+= 1
                generation += 1
                fenceGenerations[Int(slot)] = generation
                unassign(fence: fence, slot: slot, group: group, now: now, into: &update)
            }
            return update
        }
        var update = FenceUpdate(fence: fence, replaced: false, unchanged: false)
        mergeJoinedBacklogs(into: &update.transitions, changes: &update.changes)
        let slot: Int32
        if let free = freeFenceSlots.popLast() {
            slot = free
        } else {
            slot = Int32(fenceSlots.count)
            fenceSlots.append(nil)
            fenceProbes.append(.vacant)
            fenceGenerations.append(0)
            fenceGroups.append(Audiences.everyone)
        }
        generation += 1
        fenceGenerations[Int(slot)] = generation
        slotsByFenceID[key] = slot
        place(fence, in: slot, group: audiences.acquire(definition.devices))
        return update
    }

    private mutating func place(_ fence: Fence, in slot: Int32, group: Int32) {
        fenceSlots[Int(slot)] = fence
        fenceProbes[Int(slot)] = FenceProbe(fence)
        fenceGroups[Int(slot)] = group
        index.insert(slot, reach: fence.reach, group: group)
        setExpiry(fence.definition.expiresAt, of: slot)
    }

    /// Drops every device's state at fence `slot` that `group` no longer covers: those inside exit.
    private mutating func unassign(fence: Fence, slot: Int32, group: Int32, now: Double, into update: inout FenceUpdate) {
        for recordIndex in records.indicesInUse where records[recordIndex].entries.contains(where: { $0.fenceSlot == slot }) {
            let deviceSlot = records[recordIndex].device
            guard !device(deviceSlot, isIn: group) else { continue }
            var record = records.take(recordIndex)
            let device = Int(deviceSlot)
            let at = max(now, devices.lastTimestamp[device])
            if let entry = record.entries.first(where: { $0.fenceSlot == slot }), entry.state == .inside {
                if fence.notify.contains(.exit) {
                    update.transitions.append(makeTransition(
                        .exit, device: deviceSlot, fence: fence, at: at, confirmedAt: at,
                        lat: devices.anchorLat[device], lon: devices.anchorLon[device],
                        durationSeconds: max(0, at - entry.enteredAt), reason: Transition.Reason.unassigned))
                }
                update.changes.append(StateChange(device: devices.ids[device], at: at, lat: devices.anchorLat[device], lon: devices.anchorLon[device]))
            }
            record.entries.removeAll { $0.fenceSlot == slot }
            update.changedDevices.append(devices.ids[device])
            putBack(record, for: deviceSlot)
        }
    }

    /// Removes the fence `id`. Devices inside it exit with reason `fence_removed` at `now`
    /// (the caller's clock); pending changes at it are dropped.
    @discardableResult
    public mutating func removeFence(id: String, now: Double) -> FenceRemoval {
        removeFences(ids: [id], now: now)
    }

    /// Removes several fences in one pass over the devices (a reloaded file may drop thousands
    /// of fences; one pass each would be fences x devices). Unknown ids are skipped.
    @discardableResult
    public mutating func removeFences(ids: some Sequence<String>, now: Double) -> FenceRemoval {
        var slots: [Int32] = []
        for id in ids {
            if let slot = slotsByFenceID[ExactID(id)] { slots.append(slot) }
        }
        return removeFences(slots: slots, reason: Transition.Reason.fenceRemoved) { _ in now }
    }

    /// Removes the fences in `slots`; devices inside exit with `reason` at `time(fence)`, but never
    /// before their own latest event time.
    mutating func removeFences(slots: [Int32], reason: String, at time: (Fence) -> Double) -> FenceRemoval {
        var removal = FenceRemoval()
        // The epoch moves: backlogs held are merged while their fences are all there.
        if slots.contains(where: { fenceSlots[Int($0)] != nil }) {
            mergeBacklogsBeforeEpochChange(into: &removal.transitions, changes: &removal.changes)
        }
        var removed: [Int32: Fence] = [:]
        for slot in slots {
            guard let fence = fenceSlots[Int(slot)], slotsByFenceID.removeValue(forKey: ExactID(fence.id)) != nil else { continue }
            removed[slot] = fence
        }
        guard !removed.isEmpty else { return removal }
        fenceEpoch &+= 1
        let affected = records.indicesInUse.filter { records[$0].entries.contains { removed[$0.fenceSlot] != nil } }
            .sorted { records[$0].device < records[$1].device }
        for recordIndex in affected {
            var record = records.take(recordIndex)
            let deviceSlot = record.device
            let device = Int(deviceSlot)
            var latest: Double?
            let firstNewTransition = removal.transitions.endIndex
            for entry in record.entries {
                guard let fence = removed[entry.fenceSlot], entry.state == .inside else { continue }
                // The fences go now, but never before the device's own latest event time.
                let at = max(time(fence), devices.lastTimestamp[device])
                latest = max(latest ?? at, at)
                if fence.notify.contains(.exit) {
                    removal.transitions.append(makeTransition(
                        .exit, device: deviceSlot, fence: fence, at: at, confirmedAt: at,
                        lat: devices.anchorLat[device], lon: devices.anchorLon[device],
                        durationSeconds: max(0, at - entry.enteredAt), reason: reason))
                }
            }
            orderBySequence(&removal.transitions, from: firstNewTransition)
            if let latest {
                removal.changes.append(
                    StateChange(device: devices.ids[device], at: latest, lat: devices.anchorLat[device], lon: devices.anchorLon[device]))
            }
            record.entries.removeAll { removed[$0.fenceSlot] != nil }
            putBack(record, for: deviceSlot)
        }
        for slot in removed.keys.sorted() {
            index.remove(slot)
            audiences.release(fenceGroups[Int(slot)])
            fenceGroups[Int(slot)] = Audiences.everyone
            setExpiry(nil, of: slot)
            fenceSlots[Int(slot)] = nil
            fenceProbes[Int(slot)] = .vacant
            freeFenceSlots.append(slot)
        }
        removal.fences = removed.values.map(\.id).sorted { ExactID($0) < ExactID($1) }
        return removal
    }

    /// Builds an alert and advances the device's sequence number.
    mutating func makeTransition(
        _ event: AlertEvent, device deviceSlot: Int32, fence: Fence, at: Double, confirmedAt: Double,
        lat: Double, lon: Double, dwellSeconds: Double? = nil, durationSeconds: Double? = nil, reason: String? = nil
    ) -> Transition {
        devices.seq[Int(deviceSlot)] += 1
        counters.transitions += 1
        return Transition(
            event: event, device: devices.ids[Int(deviceSlot)], fenceID: fence.id, fenceName: fence.name,
            at: at, confirmedAt: confirmedAt, lat: lat, lon: lon, radiusMeters: fence.effectiveRadius,
            seq: devices.seq[Int(deviceSlot)], dwellSeconds: dwellSeconds, durationSeconds: durationSeconds,
            reason: reason)
    }
}
