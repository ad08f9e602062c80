import Foundation
import LocalBroker
import MQTT

extension LocalMosquitto {
    /// Options for a client of this broker; a unique client id unless one is given.
    public func clientOptions(clientID: String? = nil, cleanSession: Bool = true) -> MQTTOptions {
        MQTTOptions(
            url: MQTTURL(host: "127.0.0.1", port: port),
            clientID: clientID ?? "test-\(UUID().uuidString.prefix(8))",
            cleanSession: cleanSession
        )
    }

    /// A client of this broker, connected.
    public func connectedClient(_ options: MQTTOptions? = nil, timeout: Duration = .seconds(5)) async throws -> MQTTClient {
        let client = try MQTTClient(options: options ?? clientOptions(), logger: testLogger("mqtt"))
        try await client.connect(timeout: timeout)
        return client
    }
}

/// Connects, publishes one message, waits for its acknowledgement (QoS 1), disconnects. `url`
/// may list a cluster's nodes, separated by commas.
public func publishOnce(
    url: String, topic: String, payload: [UInt8], qos: Int32 = 1, retain: Bool = false,
    timeout: Duration = .seconds(5)
) async throws {
    var options = MQTTOptions(url: MQTTURL(host: "127.0.0.1"))
    options.setBrokers(try MQTTURL.list(parsing: url))
    let client = try MQTTClient(options: options, logger: testLogger("mqtt"))
    try await client.connect(timeout: timeout)
    let result = client.publish(topic: topic, payload: payload, qos: qos, retain: retain)
    let acknowledged = await client.waitForPublishes(timeout: timeout)
    await client.disconnect()
    guard result.isAccepted, acknowledged else {
        throw TestSupportError("publish to \(topic) not completed: \(result), acknowledged: \(acknowledged)")
    }
}

public func publishOnce(
    url: String, topic: String, payload: String, qos: Int32 = 1, retain: Bool = false,
    timeout: Duration = .seconds(5)
) async throws {
    try await publishOnce(url: url, topic: topic, payload: Array(payload.utf8), qos: qos, retain: retain, timeout: timeout)
}

public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
