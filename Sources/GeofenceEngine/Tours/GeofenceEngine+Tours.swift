/// Tours (docs/rules.md "Tours"): held by the engine, fed by confirmed enters, their progress kept in
/// each device's state.
extension GeofenceEngine {
    /// What setting a tour did.
    public struct TourUpdate: Sendable {
        /// A tour with the same id was replaced.
        public var replaced: Bool
        /// The definition was identical to the one held: nothing changed.
        public var unchanged: Bool
        /// Devices whose progress in the tour was dropped: every device's when the stops or their
        /// order changed, else those the new `devices` no longer matches. Their retained progress
        /// should be cleared.
        public var clearedProgress: [String]
    }

    /// Every tour held, in no particular order.
    public var tours: [TourDefinition] { tourSlots.compactMap { $0?.definition } }

    public func tour(id: String) -> TourDefinition? {
        tourSlotsByID[ExactID(id)].flatMap { tourSlots[Int($0)]?.definition }
    }

    /// Adds `definition`, or replaces the tour with its id. A stop naming a fence the engine does
    /// not hold waits for it. A replace with the same stops, in the same order mode, keeps every
    /// matching device's progress; one that changes them starts everyone over.
    @discardableResult
    public mutating func setTour(_ definition: TourDefinition) throws(TourError) -> TourUpdate {
        try TourValidation.validate(definition)
        let key = ExactID(definition.id)
        var update = TourUpdate(replaced: false, unchanged: false, clearedProgress: [])
        let slot: Int32
        if let held = tourSlotsByID[key], let old = tourSlots[Int(held)] {
            slot = held
            update.replaced = true
            update.unchanged = old.definition == definition
            if update.unchanged { return update }
            let sameRoute = old.definition.stops.map { ExactID($0) } == definition.stops.map { ExactID($0) }
                && old.definition.ordered == definition.ordered
            unindexStops(of: old.definition, slot: slot)
            audiences.release(old.group)
            let group = audiences.acquire(definition.devices)
            tourSlots[Int(slot)] = HeldTour(definition: definition, group: group)
            update.clearedProgress = dropProgress(ofTour: definition.id, keepingGroup: sameRoute ? group : nil)
        } else {
            if let free = freeTourSlots.popLast() {
                slot = free
            } else {
                slot = Int32(tourSlots.count)
                tourSlots.append(nil)
            }
            tourSlots[Int(slot)] = HeldTour(definition: definition, group: audiences.acquire(definition.devices))
            tourSlotsByID[key] = slot
        }
        for (index, stop) in definition.stops.enumerated() {
            toursByStop[ExactID(stop), default: []].append(TourStop(tour: slot, index: index))
        }
        return update
    }

    /// Removes the tour `id`; returns the devices whose progress in it was dropped (their retained
    /// progress should be cleared), or nil when no such tour is held.
    @discardableResult
    public mutating func removeTour(id: String) -> [String]? {
        let key = ExactID(id)
        guard let slot = tourSlotsByID.removeValue(forKey: key), let held = tourSlots[Int(slot)] else { return nil }
        unindexStops(of: held.definition, slot: slot)
        audiences.release(held.group)
        tourSlots[Int(slot)] = nil
        freeTourSlots.append(slot)
        return dropProgress(ofTour: id, keepingGroup: nil)
    }

    /// One device's progress in one tour, or nil before its first visit.
    public func progress(device: String, tour: String) -> TourProgressReport? {
        guard let slot = devices.slot(of: device), let held = tourSlotsByID[ExactID(tour)].flatMap({ tourSlots[Int($0)] }),
            let progress = record(of: slot)?.tours.first(where: { ExactID($0.tour) == ExactID(tour) })
        else { return nil }
        return report(progress, device: devices.ids[Int(slot)], tour: held.definition)
    }

    /// Every tour's progress of one device, by tour id.
    public func progress(device: String) -> [TourProgressReport] {
        guard let slot = devices.slot(of: device), let record = record(of: slot) else { return [] }
        return record.tours.compactMap { progress in
            tourSlotsByID[ExactID(progress.tour)].flatMap { tourSlots[Int($0)] }.map {
                report(progress, device: devices.ids[Int(slot)], tour: $0.definition)
            }
        }.sorted { ExactID($0.tour) < ExactID($1.tour) }
    }

    private func report(_ progress: TourProgress, device: String, tour: TourDefinition) -> TourProgressReport {
        TourProgressReport(
            device: device, tour: tour.id, round: progress.round, nextStop: TourTracker.nextStop(progress, of: tour),
            visited: progress.visited, skipped: progress.skipped)
    }

    private mutating func unindexStops(of definition: TourDefinition, slot: Int32) {
        for stop in definition.stops {
            let key = ExactID(stop)
            toursByStop[key]?.removeAll { $0.tour == slot }
            if toursByStop[key]?.isEmpty == true { toursByStop[key] = nil }
        }
    }

    /// Drops the progress in tour `id` of every device, or with `keepingGroup` of every device not
    /// in that group; returns them.
    private mutating func dropProgress(ofTour id: String, keepingGroup group: Int32?) -> [String] {
        let key = ExactID(id)
        var dropped: [String] = []
        for index in records.indicesInUse where records[index].tours.contains(where: { ExactID($0.tour) == key }) {
            let record = records[index]
            if let group, group == Audiences.everyone || Audiences.contains(audiences.groups(of: devices.ids[Int(record.device)]), group) {
                continue
            }
            var changed = records.take(index)
            changed.tours.removeAll { ExactID($0.tour) == key }
            dropped.append(devices.ids[Int(record.device)])
            putBack(changed, for: record.device)
        }
        return dropped.sorted { ExactID($0) < ExactID($1) }
    }

    /// The events of the tours this step's confirmed enters visit, numbered after the step's fence
    /// alerts: the enters in the order they were crossed (a stop inside another is entered after
    /// it, by the same sample), then fence id; tours in id order for each. Returns whether
    /// progress changed.
    mutating func visitTours(_ record: inout DeviceRegions, device deviceSlot: Int32, _ transitions: inout [Transition]) -> Bool {
        guard !toursByStop.isEmpty else { return false }
        var changed = false
        let enters = enteredScratch.sorted { a, b in
            a.at != b.at
                ? a.at < b.at : ExactID(fenceSlots[Int(a.fenceSlot)]?.id ?? "") < ExactID(fenceSlots[Int(b.fenceSlot)]?.id ?? "")
        }
        for enter in enters {
            guard let fence = fenceSlots[Int(enter.fenceSlot)], let stops = toursByStop[ExactID(fence.id)] else { continue }
            let ordered = stops.compactMap { stop in tourSlots[Int(stop.tour)].map { (stop, $0) } }
                .sorted { ExactID($0.1.definition.id) < ExactID($1.1.definition.id) }
            for (stop, held) in ordered where device(deviceSlot, isIn: held.group) {
                let tourKey = ExactID(held.definition.id)
                let position = record.tours.firstIndex { ExactID($0.tour) == tourKey }
                var progress = position.map { record.tours[$0] }
                let events = TourTracker.visit(&progress, tour: held.definition, stopIndex: stop.index, at: enter.at)
                guard !events.isEmpty, let progress else { continue }
                changed = true
                if let position { record.tours[position] = progress } else { record.tours.append(progress) }
                for event in events {
                    devices.seq[Int(deviceSlot)] += 1
                    counters.transitions += 1
                    transitions.append(Transition(
                        event: event.event, device: devices.ids[Int(deviceSlot)], fenceID: held.definition.stops[event.stopIndex],
                        fenceName: event.stopIndex == stop.index ? fence.name : nil, at: enter.at, confirmedAt: enter.confirmedAt,
                        lat: enter.lat, lon: enter.lon, radiusMeters: nil, seq: devices.seq[Int(deviceSlot)],
                        durationSeconds: event.durationSeconds, tourID: held.definition.id, stopIndex: event.stopIndex))
                }
            }
        }
        return changed
    }
}
