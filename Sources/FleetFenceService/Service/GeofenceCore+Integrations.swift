import FleetFenceCodecs
import FleetFenceJournal
import GeofenceEngine

/// Home Assistant and OwnTracks (docs/integrations.md "Home Assistant", "OwnTracks"): what the core publishes
/// beside its own topics, decided with the same events.
struct IntegrationState {
    /// Home Assistant discovery, when `integrations.homeassistant` is on.
    var homeAssistantPrefix: String?
    var ownTracksTransitions = true
    /// The OwnTracks topic (`owntracks/<user>/<device>`) of each OwnTracks device seen: where its
    /// transitions go. Only OwnTracks devices are here.
    var ownTracksTopics: [ExactID: String] = [:]
    /// Devices that moved since Home Assistant's attributes were last refreshed, with their latest
    /// position and accuracy: sent every few seconds, not for every sample.
    var movedForHomeAssistant: [ExactID: (lat: Double, lon: Double, accuracy: Double?)] = [:]
}

extension GeofenceCore {
    /// After an accepted sample: discovery on first sight, and the device's latest position.
    mutating func integrationsSawSample(
        device: String, format: PositionTopicRouter.Format, topic: UnsafeRawBufferPointer, sample: PositionSample,
        firstSight: Bool, into effects: inout Effects
    ) {
        if format == .ownTracks, integrations.ownTracksTransitions, integrations.ownTracksTopics[ExactID(device)] == nil {
            let topic = String(decoding: topic, as: UTF8.self)
            integrations.ownTracksTopics[ExactID(device)] = topic
            // Journaled, so that a restart still knows where its transitions go.
            effects.changes.ownTracksTopics.append(OwnTracksTopic(device: device, topic: topic))
        }
        guard let prefix = integrations.homeAssistantPrefix else { return }
        integrations.movedForHomeAssistant[ExactID(device)] = (sample.lat, sample.lon, sample.accuracy)
        if firstSight { publishDiscovery(device: device, prefix: prefix, into: &effects) }
    }

    private func publishDiscovery(device: String, prefix: String, into effects: inout Effects) {
        let objectID = HomeAssistantPayload.objectID(device: device)
        effects.publish(
            "\(prefix)/device_tracker/\(objectID)/config",
            HomeAssistantPayload.discovery(
                device: device, objectID: objectID, stateTopic: layout.homeAssistantState(device: device),
                attributesTopic: layout.homeAssistantAttributes(device: device), availabilityTopic: layout.status),
            qos: 1, retain: true)
    }

    /// Discovery, state and attributes of devices whose first sight came before Home Assistant's
    /// discovery was on, or under `replacing`, another prefix, whose configs are removed (an empty
    /// retained config), so that the entities are not there twice.
    func homeAssistantDiscovery(of devices: some Sequence<String>, replacing old: String?) -> Effects {
        var effects = Effects()
        guard let prefix = integrations.homeAssistantPrefix else { return effects }
        for device in devices {
            guard let record = engine.deviceRecord(for: device) else { continue }
            if let old, old != prefix {
                effects.publish("\(old)/device_tracker/\(HomeAssistantPayload.objectID(device: device))/config", [], qos: 1, retain: true)
            }
            publishDiscovery(device: device, prefix: prefix, into: &effects)
            let inside = engine.insideFences(of: device)
            publishHomeAssistantState(device: device, inside: inside, into: &effects)
            if let lat = record.anchorLat, let lon = record.anchorLon {
                effects.publish(
                    layout.homeAssistantAttributes(device: device),
                    HomeAssistantPayload.attributes(lat: lat, lon: lon, accuracy: engine.lastAccuracy(of: device), inside: inside),
                    qos: 1, retain: true)
            }
        }
        return effects
    }

    /// A device's fences changed: its Home Assistant state and attributes follow at once.
    mutating func integrationsStateChanged(device: String, inside: [String], lat: Double, lon: Double, into effects: inout Effects) {
        guard integrations.homeAssistantPrefix != nil else { return }
        publishHomeAssistantState(device: device, inside: inside, into: &effects)
        // Not moved since the last attributes (a fence changed, not the device): its last fix's.
        let accuracy = integrations.movedForHomeAssistant.removeValue(forKey: ExactID(device))?.accuracy
            ?? engine.lastAccuracy(of: device)
        effects.publish(
            layout.homeAssistantAttributes(device: device),
            HomeAssistantPayload.attributes(lat: lat, lon: lon, accuracy: accuracy, inside: inside), qos: 1, retain: true)
    }

    private func publishHomeAssistantState(device: String, inside: [String], into effects: inout Effects) {
        let name = inside.first.flatMap { engine.fence(id: $0) }.map(Self.displayName)
        effects.publish(layout.homeAssistantState(device: device), HomeAssistantPayload.state(fenceName: name), qos: 1, retain: true)
    }

    /// A fence's name changed: the state of the devices inside it names it anew.
    func integrationsFenceRenamed(_ id: String, into effects: inout Effects) {
        guard integrations.homeAssistantPrefix != nil else { return }
        for device in engine.devices(inside: id) {
            publishHomeAssistantState(device: device, inside: engine.insideFences(of: device), into: &effects)
        }
    }

    /// A device forgotten: what Home Assistant showed of it goes too (an empty retained message
    /// removes a discovered entity).
    mutating func integrationsForgot(device: String, into effects: inout Effects) {
        integrations.ownTracksTopics[ExactID(device)] = nil
        guard let prefix = integrations.homeAssistantPrefix else { return }
        integrations.movedForHomeAssistant[ExactID(device)] = nil
        let objectID = HomeAssistantPayload.objectID(device: device)
        effects.publish("\(prefix)/device_tracker/\(objectID)/config", [], qos: 1, retain: true)
        effects.publish(layout.homeAssistantState(device: device), [], qos: 1, retain: true)
        effects.publish(layout.homeAssistantAttributes(device: device), [], qos: 1, retain: true)
    }

    /// An alert of an OwnTracks device, mirrored as an OwnTracks transition. `accuracy`: its
    /// sample's; an alert of a fence change has none, and takes the device's last fix's.
    func integrationsAlerted(_ transition: Transition, accuracy: Double?, into effects: inout Effects) {
        guard integrations.ownTracksTransitions, let topic = integrations.ownTracksTopics[ExactID(transition.device)],
            let payload = OwnTracksTransitionPayload.encode(
                transition, accuracy: accuracy ?? engine.lastAccuracy(of: transition.device))
        else { return }
        effects.publish("\(topic)/event", payload, qos: 1, retain: false)
    }

    /// Home Assistant's attributes of the devices that moved, a few seconds' worth at a time.
    mutating func homeAssistantPositions() -> Effects {
        var effects = Effects()
        guard integrations.homeAssistantPrefix != nil else { return effects }
        let moved = integrations.movedForHomeAssistant
        integrations.movedForHomeAssistant = [:]
        for (key, position) in moved {
            let device = key.string
            effects.publish(
                layout.homeAssistantAttributes(device: device),
                HomeAssistantPayload.attributes(
                    lat: position.lat, lon: position.lon, accuracy: position.accuracy, inside: engine.insideFences(of: device)),
                qos: 1, retain: true)
        }
        return effects
    }
}
