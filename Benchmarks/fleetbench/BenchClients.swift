import Logging
import MQTT

/// How the benchmark's own MQTT clients are made: quiet (warnings only), on the private broker.
enum BenchClients {
    static let logger: Logger = {
        var logger = Logger(label: "fleetbench.mqtt")
        logger.logLevel = .warning
        return logger
    }()

    static func connect(url: String, clientID: String, subscribing filters: [String] = [], qos: Int32 = 1,
                        onMessage: (@Sendable (MQTTMessage) -> Void)? = nil) async throws -> MQTTClient {
        let options = MQTTOptions(
            url: try MQTTURL(parsing: url), clientID: clientID, cleanSession: true, maxInflight: 1000,
            maxQueuedPublishes: 100_000)
        let client = try MQTTClient(options: options, logger: logger)
        if let onMessage { client.onMessage(onMessage) }
        if !filters.isEmpty { client.subscribe(filters, qos: qos) }
        try await client.connect(timeout: .seconds(10))
        if !filters.isEmpty, !(await client.waitForSubscriptions(timeout: .seconds(10))) {
            await client.disconnect()
            throw BenchError.failed("\(clientID): subscription not acknowledged")
        }
        return client
    }
}
