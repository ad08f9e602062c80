import FleetFenceCodecs
import MQTT

/// The MQTT edge of the service's effects: what the journal's writer has committed is published
/// here, in order, from the writer's thread (libmosquitto queues it for the network thread).
struct EffectPublisher: Sendable {
    let client: MQTTClient
    let layout: TopicLayout

    func publish(_ steps: [Effects]) {
        for step in steps {
            for message in step.messages {
                _ = client.publish(topic: message.topic, payload: message.payload, qos: message.qos, retain: message.retain)
            }
            for fence in step.registry {
                _ = client.publish(
                    topic: layout.fence(fence.id), payload: FenceRegistryPayload.encode(fence), qos: 1, retain: true)
            }
        }
    }
}
