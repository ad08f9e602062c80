import FleetFenceCodecs
import GeofenceEngine

/// What one step of the service must make durable and then say: built under the engine's lock,
/// journaled first, published after.
struct Outbox {
    struct Message {
        var topic: String
        var payload: [UInt8]
        var qos: Int32
        var retain: Bool
    }

    /// Alerted transitions, as the journal stores them.
    var transitions: [JournalTransition] = []
    var messages: [Message] = []

    mutating func publish(_ topic: String, _ payload: [UInt8], qos: Int32, retain: Bool) {
        messages.append(Message(topic: topic, payload: payload, qos: qos, retain: retain))
    }
}

extension JournalTransition {
    init(_ transition: Transition, alertJSON: [UInt8]) {
        self.init(
            device: transition.device, fence: transition.fenceID, event: transition.event.rawValue,
            at: transition.at, confirmedAt: transition.confirmedAt, lat: transition.lat, lon: transition.lon,
            seq: Int64(transition.seq), reason: transition.reason, durationSeconds: transition.durationSeconds,
            dwellSeconds: transition.dwellSeconds, alertJSON: alertJSON)
    }
}
