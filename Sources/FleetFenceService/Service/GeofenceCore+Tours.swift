import FleetFenceCodecs
import FleetFenceJournal
import GeofenceEngine

/// Tours (docs/rules.md "Tours"): set and deleted like fences, journaled, retained on
/// `<prefix>/tours/<id>`; a device's progress is retained on `<prefix>/progress/<device>/<tour>`.
extension GeofenceCore {
    /// A tour definition (`<prefix>/tours/<id>/set`, `PUT /api/tours/{id}`), or with an empty
    /// payload a delete: one path for both.
    @discardableResult
    mutating func handleTourSet(
        id: String, payload: UnsafeRawBufferPointer, into effects: inout Effects
    ) -> CommandOutcome<TourDefinition> {
        let topic = "\(layout.prefix)/tours/\(id)/set"
        guard !id.isEmpty else {
            return rejectTour(id: id, topic: topic, payload: payload, reason: "the topic's tour id is empty", into: &effects)
        }
        if payload.isEmpty {
            guard let cleared = engine.removeTour(id: id) else {
                effects.log(.info, "tour delete for an unknown id ignored", ["tour": "\(id)"])
                return .unknown
            }
            clearProgress(of: cleared, tour: id, into: &effects)
            effects.changes.removedTours.append(id)
            if registryLeadership.isLeader { effects.publish(layout.tour(id), [], qos: 1, retain: true) }
            effects.log(.notice, "tour deleted", ["tour": "\(id)"])
            return .deleted
        }
        let definition: TourDefinition
        let update: GeofenceEngine.TourUpdate
        do {
            definition = try TourDecoder.decodeDefinition(payload, idFromTopic: id)
            update = try engine.setTour(definition)
        } catch {
            return rejectTour(id: id, topic: topic, payload: payload, reason: "\(error)", into: &effects)
        }
        clearProgress(of: update.clearedProgress, tour: id, into: &effects)
        let encoded = TourDefinitionEncoding.encode(definition)
        effects.changes.tours[ExactID(id)] = encoded
        effects.heldTours.append(definition)
        if registryLeadership.isLeader { effects.publish(layout.tour(id), encoded, qos: 1, retain: true) }
        effects.log(.info, update.replaced ? "tour replaced" : "tour added", ["tour": "\(id)"])
        return .set(definition, created: !update.replaced)
    }

    /// The same, for a caller that waits for the outcome.
    mutating func setTour(id: String, payload: [UInt8]) -> (Effects, CommandOutcome<TourDefinition>) {
        var effects = Effects()
        let outcome = payload.withUnsafeBytes { handleTourSet(id: id, payload: $0, into: &effects) }
        return (effects, outcome)
    }

    private mutating func rejectTour(
        id: String, topic: String, payload: UnsafeRawBufferPointer, reason: String, into effects: inout Effects
    ) -> CommandOutcome<TourDefinition> {
        counters.fenceErrors += 1
        effects.publish(layout.errors("tours"), ErrorPayload.encode(reason: reason, topic: topic, payload: payload), qos: 0, retain: false)
        effects.log(.warning, "tour rejected", ["tour": "\(id)", "reason": "\(reason)"])
        return .rejected(reason)
    }

    /// Progress the engine dropped (a tour deleted, its stops changed, a device no longer matched):
    /// the retained progress goes, and the device's state without it is journaled.
    private mutating func clearProgress(of devices: [String], tour: String, into effects: inout Effects) {
        for device in devices {
            effects.publish(layout.progress(device: device, tour: tour), [], qos: 1, retain: true)
            markDirty(device)
        }
        if !devices.isEmpty { effects.changes.devices += takeDirtyRecords(of: nil) }
    }

    /// After tour events of a step: the retained progress of each (device, tour) they moved.
    mutating func publishProgress(of events: [Transition], into effects: inout Effects) {
        var published: Set<[ExactID]> = []
        for event in events where event.event.isTourEvent {
            guard let tour = event.tourID, published.insert([ExactID(event.device), ExactID(tour)]).inserted,
                let report = engine.progress(device: event.device, tour: tour)
            else { continue }
            effects.publish(
                layout.progress(device: event.device, tour: tour), TourProgressPayload.encode(report), qos: 1, retain: true,
                kind: .tourProgress)
        }
    }

    /// Every tour retained, as held (with the fence registry, by the instance that publishes it).
    var tourRegistry: [Effects.Message] {
        engine.tours.map { tour in
            Effects.Message(topic: layout.tour(tour.id), payload: TourDefinitionEncoding.encode(tour), qos: 1, retain: true)
        }
    }
}
