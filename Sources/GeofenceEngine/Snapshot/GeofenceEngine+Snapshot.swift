/// Snapshot and restore, so that state survives a restart (docs/rules.md "The rules").
extension GeofenceEngine {
    public func snapshot() -> EngineSnapshot {
        EngineSnapshot(
            generation: generation, fences: fenceRecords(), tours: tours.sorted { ExactID($0.id) < ExactID($1.id) },
            devices: devices.ids.indices.compactMap { devices.live[$0] ? deviceRecord(slot: Int32($0)) : nil })
    }

    public func fenceRecords() -> [FenceRecord] {
        fenceSlots.indices.compactMap { slot in
            fenceSlots[slot].map { FenceRecord(definition: $0.definition, generation: fenceGenerations[slot]) }
        }.sorted { ExactID($0.definition.id) < ExactID($1.definition.id) }
    }

    /// The durable form of one fence, or nil if the engine holds no fence with that id.
    public func fenceRecord(id: String) -> FenceRecord? {
        guard let slot = slotsByFenceID[ExactID(id)], let fence = fenceSlots[Int(slot)] else { return nil }
        return FenceRecord(definition: fence.definition, generation: fenceGenerations[Int(slot)])
    }

    public var currentGeneration: UInt32 { generation }

    /// The durable state of `device`, or nil if the engine does not hold it.
    public func deviceRecord(for device: String) -> DeviceRecord? {
        devices.slot(of: device).map { deviceRecord(slot: $0) }
    }

    /// The durable state of the device at `handle`, or nil if its place holds none now.
    public func deviceRecord(_ handle: DeviceHandle) -> DeviceRecord? {
        holds(handle) ? deviceRecord(slot: handle.slot) : nil
    }

    func deviceRecord(slot: Int32) -> DeviceRecord {
        let device = Int(slot)
        let record = self.record(of: slot)
        let anchored = !devices.anchorTime[device].isNaN
        return DeviceRecord(
            device: devices.ids[device],
            lastTimestamp: devices.lastTimestamp[device].isFinite ? devices.lastTimestamp[device] : nil,
            anchorTime: anchored ? devices.anchorTime[device] : nil,
            anchorLat: anchored ? devices.anchorLat[device] : nil,
            anchorLon: anchored ? devices.anchorLon[device] : nil,
            seq: devices.seq[device], knownGeneration: devices.knownGeneration[device],
            lastArrival: (record?.entries.isEmpty ?? true) ? nil : record?.lastArrival,
            regions: (record?.entries ?? []).compactMap { entry in
                fenceSlots[Int(entry.fenceSlot)].map {
                    DeviceRecord.Region(
                        fence: $0.id, state: entry.state, enteredAt: entry.enteredAt,
                        dwellReported: entry.dwellReported, pending: entry.pending, speeding: entry.speeding)
                }
            },
            tours: record?.tours ?? [],
            lastHeard: devices.lastHeard[device].isFinite ? devices.lastHeard[device] : nil)
    }

    /// Rebuilds an engine from a snapshot. Fences are validated and clamped anew under `settings`;
    /// invalid ones (and invalid tours) are skipped.
    public init(settings: GeofenceSettings, restoring snapshot: EngineSnapshot) {
        self.init(settings: settings)
        restoreFences(snapshot.fences, generation: snapshot.generation)
        restoreTours(snapshot.tours)
        for device in snapshot.devices { restore(device) }
    }

    /// Restores fences with their generations (call on an engine without fences), in generation
    /// order. A record that no longer builds is returned with its error; its generation still
    /// counts, so that no device is ever told a generation twice.
    @discardableResult
    public mutating func restoreFences(_ records: [FenceRecord], generation: UInt32) -> [(String, FenceError)] {
        restoreFences(records, generation: generation) { records, settings in
            records.map { record in Result { () throws(FenceError) in try Fence(definition: record.definition, settings: settings) } }
        }
    }

    /// The same with the building left to `build` (each record's fence under the engine's
    /// settings, in order), so that a journal of 100,000 fences can be built on every core.
    @discardableResult
    public mutating func restoreFences(
        _ records: [FenceRecord], generation: UInt32,
        build: ([FenceRecord], GeofenceSettings) -> [Result<Fence, FenceError>]
    ) -> [(String, FenceError)] {
        let ordered = records.sorted { $0.generation < $1.generation }
        var rejected: [(String, FenceError)] = []
        reserveFences(fenceCount + ordered.count)
        for (record, built) in zip(ordered, build(ordered, settings)) {
            do {
                try setFence(try built.get())
                if let slot = slotsByFenceID[ExactID(record.definition.id)] { fenceGenerations[Int(slot)] = record.generation }
            } catch {
                rejected.append((record.definition.id, error))
            }
        }
        self.generation = max(self.generation, generation, ordered.last?.generation ?? 0)
        return rejected
    }

    /// Restores tours (call before restoring devices: progress in a tour the engine does not hold
    /// is dropped). Invalid ones are returned with their error.
    @discardableResult
    public mutating func restoreTours(_ tours: [TourDefinition]) -> [(String, TourError)] {
        var rejected: [(String, TourError)] = []
        for tour in tours {
            do {
                try setTour(tour)
            } catch {
                rejected.append((tour.id, error))
            }
        }
        return rejected
    }

    /// Restores one device. Regions at fences the engine does not hold or that are not for this
    /// device, and progress in tours it does not hold or that are not for it, are dropped.
    public mutating func restore(_ record: DeviceRecord) {
        let slot = registerDevice(record.device).slot
        let device = Int(slot)
        devices.lastTimestamp[device] = record.lastTimestamp ?? -.infinity
        devices.anchorTime[device] = record.anchorTime ?? .nan
        devices.anchorLat[device] = record.anchorLat ?? .nan
        devices.anchorLon[device] = record.anchorLon ?? .nan
        devices.seq[device] = record.seq
        devices.knownGeneration[device] = min(record.knownGeneration, generation)
        // Records written before the column existed: the latest sample's arrival is near its time.
        devices.lastHeard[device] = record.lastHeard ?? record.lastArrival ?? record.lastTimestamp ?? -.infinity
        generation = max(generation, record.knownGeneration)
        var regions = takeRecord(of: slot, arrival: record.lastArrival ?? 0)
        regions.lastArrival = record.lastArrival ?? 0
        regions.entries = []
        regions.tours = []
        for region in record.regions {
            guard let fenceSlot = slotsByFenceID[ExactID(region.fence)], self.device(slot, isIn: fenceGroups[Int(fenceSlot)]) else { continue }
            regions.entries.append(RegionEntry(
                fenceSlot: fenceSlot, state: region.state, enteredAt: region.enteredAt,
                dwellReported: region.dwellReported, pending: region.pending, speeding: region.speeding))
        }
        for progress in record.tours {
            guard let tour = tourSlotsByID[ExactID(progress.tour)].flatMap({ tourSlots[Int($0)] }), self.device(slot, isIn: tour.group) else {
                continue
            }
            regions.tours.append(progress)
        }
        putBack(regions, for: slot)
    }
}

extension GeofenceEngine {
    /// The time and place of `device`'s latest sample, or nil if the engine does not hold it or
    /// it has not accepted a sample yet: a few columns read, where `deviceRecord(for:)` copies
    /// every region.
    public func deviceClock(for device: String) -> DeviceClock? {
        devices.slot(of: device).flatMap { deviceClock(DeviceHandle(slot: $0)) }
    }

    /// The same for the device at `handle`; nil when its place holds none now.
    public func deviceClock(_ handle: DeviceHandle) -> DeviceClock? {
        let index = Int(handle.slot)
        guard devices.live[index], devices.lastTimestamp[index].isFinite else { return nil }
        let anchored = !devices.anchorTime[index].isNaN
        return DeviceClock(
            device: devices.ids[index], lastTimestamp: devices.lastTimestamp[index],
            anchorTime: anchored ? devices.anchorTime[index] : nil, anchorLat: anchored ? devices.anchorLat[index] : nil,
            anchorLon: anchored ? devices.anchorLon[index] : nil,
            lastHeard: devices.lastHeard[index].isFinite ? devices.lastHeard[index] : nil)
    }
}
