import FleetFenceCodecs
import Logging

/// The topics: alerts, retained state, tour progress, the fence registry, Home Assistant and
/// OwnTracks messages, published in the order they were committed. The bus queues them for its
/// network thread, so this never waits for the network; the outbox follows what the broker has
/// acknowledged of them.
struct MQTTOutput: Output {
    let bus: any MessageBus
    let layout: TopicLayout
    let metrics: ServiceMetrics
    let clock: any ServiceClock
    let outbox: MQTTOutbox
    let logger: Logger
    /// The journal's last alert id, read after the batch was committed (on the writer's thread).
    let lastAlertID: @Sendable () -> Int64

    func committed(_ steps: [Effects]) {
        var published: Double?
        var dropped = false
        for step in steps {
            for message in step.messages {
                let result = bus.publish(topic: message.topic, payload: message.payload, qos: message.qos, retain: message.retain)
                switch result {
                case let .dropped(.rejected(_, reason)):
                    // Refused for good (a topic libmosquitto cannot publish): the next start would be
                    // refused again, so it must not stop the outbox's mark for every message after
                    // it, as a full backlog does. Said, and counted.
                    metrics.mqttRefused()
                    logger.error(
                        "message refused by libmosquitto, not published",
                        metadata: ["topic": "\(message.topic)", "reason": "\(reason)"])
                case .dropped where message.qos > 0: dropped = true
                default: break
                }
                if case let .alert(alert) = message.kind {
                    // One clock read per batch: its alerts leave together.
                    let now = published ?? clock.now
                    published = now
                    metrics.alertPublished(afterSeconds: now - alert.arrival)
                }
            }
            for fence in step.registry {
                bus.publish(topic: layout.fence(fence.id), payload: FenceRegistryPayload.encode(fence), qos: 1, retain: true)
            }
        }
        if dropped { outbox.dropped() }
        outbox.published(alertID: lastAlertID())
    }
}
