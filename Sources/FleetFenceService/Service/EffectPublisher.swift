import FleetFenceCodecs
import Foundation
import MQTT

/// The MQTT edge of the service's effects: what the journal's writer has committed is published
/// here, in order, from the writer's thread (libmosquitto queues it for the network thread).
struct EffectPublisher: Sendable {
    let client: MQTTClient
    let layout: TopicLayout

    func publish(_ steps: [Effects], metrics: ServiceMetrics) {
        var published: Double?
        for step in steps {
            for message in step.messages {
                _ = client.publish(topic: message.topic, payload: message.payload, qos: message.qos, retain: message.retain)
                if case let .alert(alert) = message.kind {
                    // One clock read per batch: its alerts leave together.
                    let now = published ?? Date().timeIntervalSince1970
                    published = now
                    metrics.alertPublished(afterSeconds: now - alert.arrival)
                }
            }
            for fence in step.registry {
                _ = client.publish(
                    topic: layout.fence(fence.id), payload: FenceRegistryPayload.encode(fence), qos: 1, retain: true)
            }
        }
    }
}
