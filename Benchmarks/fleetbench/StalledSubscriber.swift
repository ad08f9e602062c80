import MQTT

/// A subscriber that went away and never came back: subscribed to everything the service says
/// (`<prefix>/#`, QoS 1) under a persistent session, then disconnected, so that the broker queues
/// every alert and state for it, up to its `max_queued_messages` (docs/performance.md "Soak").
enum StalledSubscriber {
    static func leave(url: String, prefix: String, clientID: String = "fleetbench-stalled") async throws {
        let options = MQTTOptions(url: try MQTTURL(parsing: url), clientID: clientID, cleanSession: false)
        let client = try MQTTClient(options: options, logger: BenchClients.logger)
        client.subscribe(["\(prefix)/#"], qos: 1)
        try await client.connect(timeout: .seconds(10))
        guard await client.waitForSubscriptions(timeout: .seconds(10)) else {
            await client.disconnect()
            throw BenchError.failed("\(clientID): subscription not acknowledged")
        }
        await client.disconnect()
    }
}
