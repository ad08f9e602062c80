import Foundation
import Logging
import MQTT
import Synchronization

/// Which instances said `online` on `<prefix>/status/<name>` since it started listening: live
/// messages only, not the retained ones an earlier run left in a kept workspace.
final class ClusterReadiness: Sendable {
    /// Apart from this object, so that the client's handler does not keep it.
    private final class Online: Sendable {
        let names = Mutex<Set<String>>([])
    }

    private let online = Online()
    private let client: MQTTClient

    init(brokerList: String, prefix: String) async throws {
        var options = MQTTOptions(url: MQTTURL(host: "127.0.0.1"), clientID: "fleetfence-cluster-\(getpid())-status")
        options.setBrokers(try MQTTURL.list(parsing: brokerList))
        var quiet = Logger(label: "fleetfence-cluster")
        quiet.logLevel = .error
        client = try MQTTClient(options: options, logger: quiet)
        let statusPrefix = prefix + "/status/"
        client.onMessage { [online] message in
            guard !message.retain, message.topic.hasPrefix(statusPrefix) else { return }
            let name = String(message.topic.dropFirst(statusPrefix.count))
            let text = String(decoding: message.payload, as: UTF8.self)
            online.names.withLock { if text == "online" { $0.insert(name) } else { $0.remove(name) } }
        }
        // QoS 0: a new QoS 1 subscription needs JetStream, which a node's loss can hold up.
        client.subscribe([prefix + "/status/+"], qos: 0)
        try await client.connect(timeout: .seconds(10))
        _ = await client.waitForSubscriptions(timeout: .seconds(10))
    }

    func isOnline(_ name: String) -> Bool { online.names.withLock { $0.contains(name) } }

    func forget(_ name: String) { _ = online.names.withLock { $0.remove(name) } }

    func stop() async { await client.disconnect() }
}
