import MQTT
import Synchronization

/// Listens to what the service says: alerts (first arrival per device) and status topics.
final class Observer: Sendable {
    struct Seen: Sendable {
        var firstAlert: [String: UInt64] = [:]
        var alerts = 0
        var status: [String: (payload: String, nanos: UInt64)] = [:]
    }

    /// Filled on the client's network thread, read by the phases.
    final class Board: Sendable {
        let seen = Mutex(Seen())
    }

    let client: MQTTClient
    private let board: Board

    private init(client: MQTTClient, board: Board) {
        self.client = client
        self.board = board
    }

    /// `statusTopics` are watched for `online`; alerts are read under every prefix's `alerts/#`, or
    /// on `alertFilters` alone when given (`<prefix>/alerts/<device>/<fence>/<event>` each).
    static func start(url: String, prefixes: [String], alertFilters: [String]? = nil, clientID: String = "fleetbench-observer")
        async throws -> Observer
    {
        let box = Board()
        let client = try await BenchClients.connect(
            url: url, clientID: clientID,
            subscribing: prefixes.map { "\($0)/status" } + (alertFilters ?? prefixes.map { "\($0)/alerts/#" }), qos: 1,
            onMessage: { @Sendable message in
                let now = Monotonic.nanos()
                let topic = message.topic
                if topic.hasSuffix("/status") {
                    let payload = String(decoding: message.payload, as: UTF8.self)
                    box.seen.withLock { $0.status[topic] = (payload, now) }
                    return
                }
                // <prefix>/alerts/<device>/<fence>/<event>
                let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
                guard levels.count >= 5 else { return }
                let device = String(levels[levels.count - 3])
                box.seen.withLock { seen in
                    seen.alerts += 1
                    if seen.firstAlert[device] == nil { seen.firstAlert[device] = now }
                }
            })
        return Observer(client: client, board: box)
    }

    func firstAlert(of device: String) -> UInt64? {
        board.seen.withLock { $0.firstAlert[device] }
    }

    var alertCount: Int { board.seen.withLock { $0.alerts } }

    /// When `topic` last said `online` (retained or live), if it did.
    func onlineSince(_ topic: String) -> UInt64? {
        board.seen.withLock { seen in
            guard let status = seen.status[topic], status.payload == "online" else { return nil }
            return status.nanos
        }
    }

    func stop() async {
        await client.disconnect()
    }
}
