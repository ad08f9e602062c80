/// Read-only questions about fences near a point.
extension GeofenceEngine {
    /// Ids of fences the point is inside of, or near enough that some sample there would not be
    /// outside evidence (within the largest margin a sample can have there), found through the
    /// spatial index. Sorted by their bytes.
    public func fencesNear(lat: Double, lon: Double) -> [String] {
        var slots: [Int32] = []
        index.candidates(lat: lat, lon: lon, into: &slots)
        return near(slots, lat: lat, lon: lon)
    }

    /// The same answer by checking every fence: the reference for the index.
    public func fencesNearByBruteForce(lat: Double, lon: Double) -> [String] {
        near(fenceSlots.indices.map { Int32($0) }, lat: lat, lon: lon)
    }

    private func near(_ slots: [Int32], lat: Double, lon: Double) -> [String] {
        slots.compactMap { slot -> String? in
            guard let fence = fenceSlots[Int(slot)] else { return nil }
            let (distance, cap) = fence.geometry.measure(ProbePoint(lat: lat, lon: lon), cap: fence.marginCap)
            return distance > -min(cap, fence.reachMargin) ? fence.id : nil
        }.sorted { ExactID($0) < ExactID($1) }
    }
}

extension GeofenceEngine {
    /// The devices inside fence `id`, by their bytes. A scan of the devices' sparse records, for a
    /// caller that asks when a fence changes (a renamed fence renames what they show), not per
    /// sample.
    public func devices(inside id: String) -> [String] {
        guard let fenceSlot = slotsByFenceID[ExactID(id)] else { return [] }
        return records.indicesInUse.compactMap { index in
            let record = records[index]
            guard record.entries.contains(where: { $0.fenceSlot == fenceSlot && $0.state == .inside }) else { return nil }
            return devices.ids[Int(record.device)]
        }.sorted { ExactID($0) < ExactID($1) }
    }
}
