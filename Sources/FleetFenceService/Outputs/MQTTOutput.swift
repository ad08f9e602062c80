import FleetFenceCodecs

/// The topics: alerts, retained state, tour progress, the fence registry, Home Assistant and
/// OwnTracks messages, published in the order they were committed. The bus queues them for its
/// network thread, so this never waits for the network.
struct MQTTOutput: Output {
    let bus: any MessageBus
    let layout: TopicLayout
    let metrics: ServiceMetrics
    let clock: any ServiceClock

    func committed(_ steps: [Effects]) {
        var published: Double?
        for step in steps {
            for message in step.messages {
                bus.publish(topic: message.topic, payload: message.payload, qos: message.qos, retain: message.retain)
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
    }
}
