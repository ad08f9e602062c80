import FleetFenceCodecs
import FleetFenceJournal
import GeofenceEngine

/// What a start publishes again: what the journal holds past its ``PublishedMark``, the part a
/// `kill -9` may have taken with libmosquitto's memory (docs/reliability.md "What is promised").
struct Republish: Sendable {
    var alerts: [UnpublishedAlert]
    /// Devices whose retained state may be missing.
    var states: [String]
}

extension GeofenceService {
    /// Devices' states a slice at a time, paced by the broker's acknowledgements: a million at
    /// once would overflow libmosquitto's backlog. Off the network thread, which reads the
    /// acknowledgements; newer states made meanwhile are newer steps, published after.
    static func republishStates(_ devices: [String], loop: CoreLoop, bus: any MessageBus) {
        guard !devices.isEmpty else { return }
        Task.detached {
            for start in stride(from: 0, to: devices.count, by: 500) {
                while bus.publishTickets.outstanding > 20_000 { try? await Task.sleep(for: .milliseconds(10)) }
                loop.step { $0.republishStates(devices[start..<min(devices.count, start + 500)]) }
            }
        }
    }
}

extension GeofenceCore {
    /// The alerts, with their journaled bytes, under the topics they were published on, before
    /// any new alert of the connection: a receiver sees each device's `seq` in order and drops
    /// what it already had. They are not new alerts: not counted, not in the live feed.
    func republish(_ alerts: [UnpublishedAlert], into effects: inout Effects) {
        for alert in alerts {
            let event = AlertEvent(rawValue: alert.event)
            let topic: String
            if event?.isTourEvent == true {
                // The tour is in the payload only (the row's fence is the stop's).
                guard case let .success(.object(object)) = JSONParser.parse(alert.payload),
                    case let .string(tour)? = object["tour"]
                else { continue }
                topic = layout.progress(device: alert.device, tour: tour, event: alert.event)
            } else {
                topic = layout.alert(device: alert.device, fence: alert.fence, event: alert.event)
            }
            effects.publish(topic, alert.payload, qos: 1, retain: false)
        }
    }

    /// The retained state of `devices` as the engine holds it now (a device forgotten since has
    /// none to send).
    func republishStates(_ devices: some Sequence<String>) -> Effects {
        var effects = Effects()
        for device in devices {
            guard let record = engine.deviceRecord(for: device) else { continue }
            let payload = StatePayload.encode(
                device: device, inside: engine.insideFences(of: device), at: record.lastTimestamp ?? record.anchorTime ?? 0,
                lat: record.anchorLat ?? 0, lon: record.anchorLon ?? 0)
            effects.publish(layout.state(device: device), payload, qos: 1, retain: true)
        }
        return effects
    }
}
