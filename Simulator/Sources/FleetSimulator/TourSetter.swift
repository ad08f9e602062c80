import FleetFenceCodecs
import Foundation
import GeofenceEngine
import Logging
import MQTT
import Synchronization

/// Sets a run's tours on the service before the trucks start (docs/simulator.md "Simulator", `--tours`):
/// each on `<prefix>/tours/<id>/set`, then waits until the service holds it, which it says by
/// retaining it on `<prefix>/tours/<id>`. A tour refused on `<prefix>/errors/tours` fails the run;
/// a service that says nothing in time is warned about, and the trucks start anyway.
enum TourSetter {
    private final class Seen: Sendable {
        /// Tour id → the definition the service retains.
        let held = Mutex<[String: TourDefinition]>([:])
        /// Refusals of our `set` topics: tour id → reason.
        let refused = Mutex<[String: String]>([:])
    }

    static func set(
        _ tours: [TourDefinition], options: MQTTOptions, prefix: String, timeout: Duration, logger: Logger
    ) async throws {
        guard !tours.isEmpty else { return }
        let client = try MQTTClient(options: options, logger: logger)
        let seen = Seen()
        let heldTopic = "\(prefix)/tours/"
        let setTopics = Dictionary(uniqueKeysWithValues: tours.map { ("\(prefix)/tours/\($0.id)/set", $0.id) })
        client.subscribe(["\(prefix)/tours/+", "\(prefix)/errors/tours"], qos: 1)
        client.onMessage { message in
            let topic = message.topic
            if topic.hasPrefix(heldTopic) {
                let id = String(topic.dropFirst(heldTopic.count))
                guard let tour = try? TourDecoder.decodeDefinition(message.payloadBytes, idFromTopic: id) else { return }
                seen.held.withLock { $0[id] = tour }
            } else if case let .success(.object(error)) = JSONParser.parse(message.payloadBytes),
                      case let .string(setTopic)? = error["topic"], let id = setTopics[setTopic] {
                let reason = if case let .string(text)? = error["error"] { text } else { "no reason given" }
                seen.refused.withLock { $0[id] = reason }
            }
        }
        do {
            try await client.connect(timeout: timeout)
            guard await client.waitForSubscriptions(timeout: timeout) else { throw SimulationError.subscriptionTimedOut }
        } catch {
            await client.disconnect()
            throw SimulationError.connectFailed("\(options.url): \(error)")
        }
        for tour in tours {
            _ = client.publish(topic: "\(prefix)/tours/\(tour.id)/set", payload: TourDefinitionEncoding.encode(tour), qos: 1)
        }
        let deadline = ContinuousClock.now + timeout
        var waiting = tours
        while true {
            if let (id, reason) = seen.refused.withLock({ $0.first }) {
                await client.disconnect()
                throw SimulationError.tourRefused(tour: id, reason: reason)
            }
            let held = seen.held.withLock { $0 }
            waiting.removeAll { held[$0.id] == $0 }
            if waiting.isEmpty { break }
            if ContinuousClock.now >= deadline {
                logger.warning("the service did not confirm tour(s) \(waiting.map(\.id).joined(separator: ", ")) on \(prefix)/tours/<id>; its tour events may be missed")
                break
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        await client.disconnect()
    }
}
