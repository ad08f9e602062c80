/// Snapshot and restore, so that state survives a restart (rule 5).
extension GeofenceEngine {
    public func snapshot() -> EngineSnapshot {
        EngineSnapshot(
            generation: generation, fences: fenceRecords(),
            devices: devices.ids.indices.map { deviceRecord(slot: Int32($0)) })
    }

    public func fenceRecords() -> [FenceRecord] {
        fenceSlots.indices.compactMap { slot in
            fenceSlots[slot].map { FenceRecord(definition: $0.definition, generation: fenceGenerations[slot]) }
        }.sorted { $0.definition.id < $1.definition.id }
    }

    /// The durable form of one fence, or nil if the engine holds no fence with that id.
    public func fenceRecord(id: String) -> FenceRecord? {
        guard let slot = slotsByFenceID[id], let fence = fenceSlots[Int(slot)] else { return nil }
        return FenceRecord(definition: fence.definition, generation: fenceGenerations[Int(slot)])
    }

    public var currentGeneration: UInt32 { generation }

    /// The durable state of `device`, or nil if the engine has never seen it.
    public func deviceRecord(for device: String) -> DeviceRecord? {
        devices.slots[device].map { deviceRecord(slot: $0) }
    }

    func deviceRecord(slot: Int32) -> DeviceRecord {
        let device = Int(slot)
        let record = regions[slot]
        let anchored = !devices.anchorTime[device].isNaN
        return DeviceRecord(
            device: devices.ids[device],
            lastTimestamp: devices.lastTimestamp[device].isFinite ? devices.lastTimestamp[device] : nil,
            anchorTime: anchored ? devices.anchorTime[device] : nil,
            anchorLat: anchored ? devices.anchorLat[device] : nil,
            anchorLon: anchored ? devices.anchorLon[device] : nil,
            seq: devices.seq[device], knownGeneration: devices.knownGeneration[device],
            lastArrival: record?.lastArrival,
            regions: (record?.entries ?? []).compactMap { entry in
                fenceSlots[Int(entry.fenceSlot)].map {
                    DeviceRecord.Region(
                        fence: $0.id, state: entry.state, enteredAt: entry.enteredAt,
                        dwellReported: entry.dwellReported, pending: entry.pending)
                }
            })
    }

    /// Rebuilds an engine from a snapshot. Fences are validated and clamped anew under `settings`;
    /// invalid ones are skipped and returned with their error.
    public init(settings: GeofenceSettings, restoring snapshot: EngineSnapshot) {
        self.init(settings: settings)
        restoreFences(snapshot.fences, generation: snapshot.generation)
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
                if let slot = slotsByFenceID[record.definition.id] { fenceGenerations[Int(slot)] = record.generation }
            } catch {
                rejected.append((record.definition.id, error))
            }
        }
        self.generation = max(self.generation, generation, ordered.last?.generation ?? 0)
        return rejected
    }

    /// Restores one device. Regions at fences the engine does not hold are dropped.
    public mutating func restore(_ record: DeviceRecord) {
        let slot = devices.handle(for: record.device).slot
        let device = Int(slot)
        devices.lastTimestamp[device] = record.lastTimestamp ?? -.infinity
        devices.anchorTime[device] = record.anchorTime ?? .nan
        devices.anchorLat[device] = record.anchorLat ?? .nan
        devices.anchorLon[device] = record.anchorLon ?? .nan
        devices.seq[device] = record.seq
        devices.knownGeneration[device] = min(record.knownGeneration, generation)
        generation = max(generation, record.knownGeneration)
        var regions = DeviceRegions(lastArrival: record.lastArrival ?? 0)
        for region in record.regions {
            guard let fenceSlot = slotsByFenceID[region.fence] else { continue }
            regions.entries.append(RegionEntry(
                fenceSlot: fenceSlot, state: region.state, enteredAt: region.enteredAt,
                dwellReported: region.dwellReported, pending: region.pending))
        }
        store(regions, for: slot)
    }
}
