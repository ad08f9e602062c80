import Foundation
import LocalBroker
import Logging
import MQTT
import Synchronization

/// Waits until the service is ready for trucks: it said `online` on `<prefix>/status` and its
/// registry (`<prefix>/fences/<id>`) holds the fences of the file. The service goes online
/// before it loads its fences; trucks seen before that would miss their first crossing.
enum DemoServiceReadiness {
    /// After `online`, how long to wait for a registry that never fills (a fence the service
    /// rejects, say) before starting anyway.
    static let registryGrace: Duration = .seconds(3)

    /// What the service said so far; written on the MQTT thread.
    private final class Seen: Sendable {
        let state = Mutex<(online: ContinuousClock.Instant?, fences: Set<String>)>((nil, []))
    }

    static func wait(
        for service: ServiceProcess, brokerURL: String, prefix: String, fences: Int, logger: Logger,
        timeout: Duration = .seconds(20)
    ) async throws {
        let statusTopic = prefix + "/status"
        let seen = Seen()
        let client = try MQTTClient(
            options: MQTTOptions(url: try MQTTURL(parsing: brokerURL), clientID: "fleetfence-demo-\(getpid())-ready"),
            logger: logger)
        client.onMessage { message in
            let topic = message.topic
            let text = String(decoding: message.payload, as: UTF8.self)
            seen.state.withLock { seen in
                if topic == statusTopic {
                    if text == "online", seen.online == nil { seen.online = .now }
                } else if !message.payload.isEmpty {
                    seen.fences.insert(topic)
                }
            }
        }
        client.subscribe([statusTopic, prefix + "/fences/+"], qos: 1)
        try await client.connect(timeout: .seconds(10))
        do {
            try await poll(service, seen: seen, fences: fences, logger: logger, timeout: timeout)
        } catch {
            await client.disconnect()
            throw error
        }
        await client.disconnect()
    }

    private static func poll(
        _ service: ServiceProcess, seen: Seen,
        fences: Int, logger: Logger, timeout: Duration
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (online, registered) = seen.state.withLock { ($0.online, $0.fences.count) }
            if let online, registered >= fences || ContinuousClock.now - online >= registryGrace {
                if registered < fences {
                    logger.warning("the service holds \(registered) of the file's \(fences) fences; starting anyway")
                }
                return
            }
            if !service.isRunning {
                throw DemoError(
                    "the service exited during start-up with status \(service.exitStatus ?? -1); its last lines:\n"
                        + service.logTail())
            }
            if ContinuousClock.now >= deadline {
                throw DemoError("the service was not ready within \(timeout); its last lines:\n" + service.logTail())
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
