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

    var transitions: [Transition] = []
    var messages: [Message] = []

    var isEmpty: Bool { transitions.isEmpty && messages.isEmpty }

    mutating func publish(_ topic: String, _ payload: [UInt8], qos: Int32, retain: Bool) {
        messages.append(Message(topic: topic, payload: payload, qos: qos, retain: retain))
    }

    mutating func removeAll() {
        transitions.removeAll(keepingCapacity: true)
        messages.removeAll(keepingCapacity: true)
    }
}
