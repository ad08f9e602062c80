import Foundation
import Logging
import MQTT
import Synchronization

/// Publishes truck positions over a small pool of MQTT connections.
///
/// Why a pool: every `MQTTClient` is a libmosquitto client with its own network thread and
/// socket. 10,000 trucks with a connection each would be 10,000 threads on a 2-core machine,
/// all scheduling against each other and the broker. Devices are named by topic, not by
/// connection, so trucks can share: one connection per truck up to `maxConnections` (realistic
/// for small fleets, and it spreads the load over the broker's sockets), then truck k uses
/// connection k mod C. A truck always uses the same connection, so its positions stay in order.
final class TruckPublisher: PositionSender {
    let clients: [MQTTClient]
    /// Per truck: its topic and its connection.
    private let topics: [String]
    private let devices: [String]
    private let format: PositionFormat
    private let qos: Int32
    let sent = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)

    init(options: SimulationOptions, plan: FleetPlan, logger: Logger) throws {
        let count = max(1, min(plan.trucks.count, options.maxConnections))
        let urls = try MQTTURL.list(parsing: options.broker)
        clients = try (0..<count).map { n in
            var client = MQTTOptions(
                url: urls[0], clientID: "\(options.clientIDPrefix)\(n + 1)", cleanSession: true,
                username: options.username, password: options.password, caFile: options.caFile)
            client.setBrokers(urls)
            return try MQTTClient(options: client, logger: logger)
        }
        topics = plan.trucks.map { options.topicTemplate.replacingOccurrences(of: "{device}", with: $0.device) }
        devices = plan.trucks.map(\.device)
        format = options.format
        qos = options.qos
    }

    var connectionCount: Int { clients.count }

    /// Connects every client, a few at a time; on any failure the others are disconnected.
    func connect(timeout: Duration) async throws {
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (n, client) in clients.enumerated() {
                    if n >= 8 { try await group.next() }
                    group.addTask { try await client.connect(timeout: timeout) }
                }
                try await group.waitForAll()
            }
        } catch {
            await disconnect(waitFor: .zero)
            throw SimulationError.connectFailed("\(error)")
        }
    }

    /// Counted as dropped when MQTT refused it (QoS 0 while the connection is down, a full backlog).
    func publish(_ sample: TruckSample) {
        let client = clients[sample.truck % clients.count]
        let result = client.publish(topic: topics[sample.truck], payload: format.encode(sample, device: devices[sample.truck]), qos: qos)
        if result.isAccepted {
            sent.add(1, ordering: .relaxed)
        } else {
            dropped.add(1, ordering: .relaxed)
        }
    }

    var sentCount: Int { sent.load(ordering: .relaxed) }
    var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// Waits for QoS 1 acknowledgements (up to `waitFor`), then disconnects cleanly.
    func disconnect(waitFor: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            for client in clients {
                group.addTask {
                    if waitFor > .zero { _ = await client.waitForPublishes(timeout: waitFor) }
                    await client.disconnect()
                }
            }
        }
    }
}
