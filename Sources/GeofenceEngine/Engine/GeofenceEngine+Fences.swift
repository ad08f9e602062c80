/// Adding, replacing and removing fences at run time.
extension GeofenceEngine {
    /// What setting a fence did.
    public struct FenceUpdate: Sendable {
        public var fence: Fence
        /// A fence with the same id was replaced; device state at it is kept.
        public var replaced: Bool
        /// The definition was identical to the one held: nothing changed.
        public var unchanged: Bool
    }

    /// What removing a fence did.
    public struct FenceRemoval: Sendable {
        /// `exit` alerts with reason `fence_removed` for devices that were inside.
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
        slotsByFenceID.reserveCapacity(count)
        index.reserveCapacity(count)
    }

    /// Adds `definition`, or replaces the fence with its id. A new fence starts unknown for every
    /// device (first sight: silent); a replaced one keeps each device's state, and the next samples
    /// are judged against the new shape.
    @discardableResult
    public mutating func setFence(_ definition: FenceDefinition) throws(FenceError) -> FenceUpdate {
        insert(try Fence(definition: definition, settings: settings))
    }

    /// The same with a fence built beforehand, so that validation and geometry (a polygon's
    /// inscribed circle) can run outside whatever guards the engine, and in parallel. A fence
    /// clamped with other radius limits than this engine's is built again.
    @discardableResult
    public mutating func setFence(_ fence: Fence) throws(FenceError) -> FenceUpdate {
        insert(fence.isBuilt(with: settings) ? fence : try Fence(definition: fence.definition, settings: settings))
    }

    private mutating func insert(_ fence: Fence) -> FenceUpdate {
        let definition = fence.definition
        if let slot = slotsByFenceID[definition.id] {
            let unchanged = fenceSlots[Int(slot)]?.definition == definition
            fenceSlots[Int(slot)] = fence
            fenceProbes[Int(slot)] = FenceProbe(fence)
            index.insert(slot, reach: fence.reach)
            return FenceUpdate(fence: fence, replaced: true, unchanged: unchanged)
        }
        let slot: Int32
        if let free = freeFenceSlots.popLast() {
            slot = free
            fenceSlots[Int(slot)] = fence
            fenceProbes[Int(slot)] = FenceProbe(fence)
        } else {
            slot = Int32(fenceSlots.count)
            fenceSlots.append(fence)
            fenceProbes.append(FenceProbe(fence))
            fenceGenerations.append(0)
        }
        generation += 1
        fenceGenerations[Int(slot)] = generation
        slotsByFenceID[definition.id] = slot
        index.insert(slot, reach: fence.reach)
        return FenceUpdate(fence: fence, replaced: false, unchanged: false)
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
        var removal = FenceRemoval()
        var removed: [Int32: Fence] = [:]
        for id in ids {
            guard let slot = slotsByFenceID.removeValue(forKey: id), let fence = fenceSlots[Int(slot)] else { continue }
            removed[slot] = fence
        }
        guard !removed.isEmpty else { return removal }
        for deviceSlot in regions.keys.sorted() {
            guard var record = regions[deviceSlot], record.entries.contains(where: { removed[$0.fenceSlot] != nil })
            else { continue }
            let device = Int(deviceSlot)
            // The fences go now, but never before the device's own latest event time.
            let at = max(now, devices.lastTimestamp[device])
            var leftAny = false
            for entry in record.entries {
                guard let fence = removed[entry.fenceSlot], entry.state == .inside else { continue }
                leftAny = true
                if fence.notify.contains(.exit) {
                    removal.transitions.append(
                        makeTransition(
                            .exit, device: deviceSlot, fence: fence, at: at, confirmedAt: at,
                            lat: devices.anchorLat[device], lon: devices.anchorLon[device],
                            durationSeconds: max(0, at - entry.enteredAt), reason: "fence_removed"))
                }
            }
            if leftAny {
                removal.changes.append(
                    StateChange(device: devices.ids[device], at: at, lat: devices.anchorLat[device], lon: devices.anchorLon[device]))
            }
            record.entries.removeAll { removed[$0.fenceSlot] != nil }
            store(record, for: deviceSlot)
        }
        for slot in removed.keys.sorted() {
            index.remove(slot)
            fenceSlots[Int(slot)] = nil
            fenceProbes[Int(slot)] = nil
            freeFenceSlots.append(slot)
        }
        return removal
    }

    /// Puts a device's sparse record back, or drops it when nothing in it differs from the default.
    mutating func store(_ record: DeviceRegions, for deviceSlot: Int32) {
        if record.entries.isEmpty {
            regions[deviceSlot] = nil
            devicesAwaitingSilence.remove(deviceSlot)
        } else {
            regions[deviceSlot] = record
            if record.hasEvidencePending {
                devicesAwaitingSilence.insert(deviceSlot)
            } else {
                devicesAwaitingSilence.remove(deviceSlot)
            }
        }
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
