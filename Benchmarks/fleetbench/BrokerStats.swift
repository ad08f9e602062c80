import MQTT
import Synchronization

/// The broker's own figures from its `$SYS` topics (every `sys_interval`, 10 s by default): how many
/// messages it holds, which the stalled subscriber's queue makes grow.
final class BrokerStats: Sendable {
    /// Filled on the client's network thread.
    final class Board: Sendable {
        let values = Mutex<[String: Double]>([:])
    }

    static let storedMessages = "$SYS/broker/store/messages/count"
    static let storedBytes = "$SYS/broker/store/messages/bytes"

    let client: MQTTClient
    private let board: Board

    private init(client: MQTTClient, board: Board) {
        self.client = client
        self.board = board
    }

    static func start(url: String) async throws -> BrokerStats {
        let board = Board()
        let client = try await BenchClients.connect(
            url: url, clientID: "fleetbench-broker-stats", subscribing: [storedMessages, storedBytes], qos: 0,
            onMessage: { @Sendable message in
                guard let value = Double(String(decoding: message.payload, as: UTF8.self)) else { return }
                board.values.withLock { $0[message.topic] = value }
            })
        return BrokerStats(client: client, board: board)
    }

    /// The latest value of `topic`, if the broker said one.
    func value(_ topic: String) -> Double? {
        board.values.withLock { $0[topic] }
    }

    func stop() async {
        await client.disconnect()
    }
}
