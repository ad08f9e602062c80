import FleetFenceCodecs
import FleetFenceJournal
import GeofenceEngine
import Logging
import Synchronization

/// What a start publishes again: what the journal holds past its ``PublishedMark``, the part a
/// `kill -9` may have taken with libmosquitto's memory (docs/reliability.md "What is promised").
struct Republish: Sendable {
    var alerts: [UnpublishedAlert]
    /// Devices whose retained state may be missing.
    var states: [String]

    var isEmpty: Bool { alerts.isEmpty && states.isEmpty }
}

extension GeofenceService {
    /// Devices' states (`nil`: every device's) a slice at a time (``inSlices(_:of:loop:bus:_:)``).
    /// Newer states made meanwhile are newer steps, published after. Tells the outbox once all went.
    static func republishStates(_ devices: [String]?, loop: CoreLoop, bus: any MessageBus, outbox: MQTTOutbox) -> Task<Void, Never> {
        Task.detached {
            let devices = devices ?? loop.withCore { $0.engine.deviceIDs }
            guard await inSlices(devices, of: 500, loop: loop, bus: bus, { $0.republishStates($1) }) else { return }
            // Also the alerts of the first connection's step, delivered before this task began.
            await loop.writer.waitUntilDelivered()
            guard !Task.isCancelled else { return }
            outbox.endRepublish()
        }
    }

    /// The fence registry, 1,000 entries a slice. Each slice is taken from the fences held at its
    /// step, so a change made meanwhile, published after its own commit, is never followed by an
    /// older entry. A restart with 100,000 fences published them in one step, which alerts and
    /// `fences loaded` waited for (0.28 s of the journal's writer).
    static func republishRegistry(loop: CoreLoop, bus: any MessageBus) -> Task<Void, Never> {
        Task.detached {
            let (ids, round) = loop.withCore { $0.registryRoundIDs() }
            // A round cancelled (a newer one began) or stopped (leadership lost) stays open until the next.
            // A task cancelled before its first step may have read the newer round's number: that
            // round is its successor's to end (an empty registry has no slice to notice the cancel).
            guard await inSlices(ids, of: 1_000, loop: loop, bus: bus, { $0.registrySlice($1) }), !Task.isCancelled else { return }
            loop.withCore { $0.registryRoundEnded(round) }
        }
    }

    /// Home Assistant's discovery of every device held, when the journal does not say they have it
    /// under `prefix` (Home Assistant was off, or under `replacing`, another prefix): their first
    /// sight has passed. Journaled once the broker has acknowledged all of it, so that a run
    /// interrupted before (a stop, a kill, a journal that failed) is done again.
    static func discoverDevices(
        prefix: String, replacing old: String?, journal: Journal, loop: CoreLoop, bus: any MessageBus, logger: Logger
    ) -> Task<Void, Never> {
        Task.detached {
            let devices = loop.withCore { $0.engine.deviceIDs }
            if !devices.isEmpty { logger.info("publishing Home Assistant discovery", metadata: ["devices": "\(devices.count)"]) }
            guard await inSlices(devices, of: 500, loop: loop, bus: bus, { $0.homeAssistantDiscovery(of: $1, replacing: old) })
            else { return }
            let issued = bus.publishTickets.issued
            while bus.publishTickets.acknowledgedThrough < issued {
                guard (try? await Task.sleep(for: .milliseconds(50))) != nil else { return }
            }
            guard !Task.isCancelled else { return }
            do {
                try journal.setHomeAssistantDiscovery(HomeAssistantDiscoveryMark(prefix: prefix, complete: true))
                logger.info("Home Assistant discovery journaled", metadata: ["prefix": "\(prefix)", "devices": "\(devices.count)"])
            } catch {
                logger.warning("Home Assistant discovery not journaled; the next start publishes it again", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Steps `items` through the core `size` at a time, each slice delivered before the next and
    /// paced by the broker's acknowledgements: a million messages at once would overflow
    /// libmosquitto's backlog. Run off the network thread, which reads the acknowledgements.
    /// `slice` answers `nil` to stop. Returns whether every slice went (not cancelled or stopped).
    private static func inSlices(
        _ items: [String], of size: Int, loop: CoreLoop, bus: any MessageBus,
        _ slice: (inout GeofenceCore, ArraySlice<String>) -> Effects?
    ) async -> Bool {
        for start in stride(from: 0, to: items.count, by: size) {
            while bus.publishTickets.outstanding > 20_000 {
                guard (try? await Task.sleep(for: .milliseconds(10))) != nil else { return false }
            }
            guard !Task.isCancelled else { return false }
            let part = items[start..<min(items.count, start + size)]
            let went = loop.stepReturning { core in slice(&core, part).map { ($0, true) } ?? (Effects(), false) }
            guard went else { return false }
            await loop.writer.waitUntilDelivered()
        }
        return true
    }
}

/// The task publishing something again after a connect: a newer one (a reconnect) replaces it,
/// and once the service stops none starts, though a reconnect may still come while it stops.
final class RepublishSlot: Sendable {
    private let state = Mutex<(task: Task<Void, Never>?, stopped: Bool)>((nil, false))

    /// Cancels the running task and starts the one `make` gives, unless stopped.
    func start(_ make: () -> Task<Void, Never>) {
        state.withLock { state in
            guard !state.stopped else { return }
            state.task?.cancel()
            state.task = make()
        }
    }

    func stop() {
        state.withLock { state in
            state.stopped = true
            state.task?.cancel()
        }
    }
}

extension GeofenceCore {
    /// The alerts, with their journaled bytes, under the topics they were published on, before
    /// any new alert of the connection: a receiver sees each device's `seq` in order and drops
    /// what it already had. They are not new alerts: not counted, not in the live feed.
    func republish(_ alerts: [UnpublishedAlert], into effects: inout Effects) {
        for alert in alerts {
            let event = AlertEvent(rawValue: alert.event)
            let topic: String
            if event?.isTourEvent == true {
                // The tour is in the payload only (the row's fence is the stop's).
                guard case let .success(.object(object)) = JSONParser.parse(alert.payload),
                    case let .string(tour)? = object["tour"]
                else { continue }
                topic = layout.progress(device: alert.device, tour: tour, event: alert.event)
            } else {
                topic = layout.alert(device: alert.device, fence: alert.fence, event: alert.event)
            }
            effects.publish(topic, alert.payload, qos: 1, retain: false)
        }
    }

    /// The retained state of `devices` as the engine holds it now (a device forgotten since has
    /// none to send).
    func republishStates(_ devices: some Sequence<String>) -> Effects {
        var effects = Effects()
        for device in devices {
            guard let record = engine.deviceRecord(for: device) else { continue }
            let payload = StatePayload.encode(
                device: device, inside: engine.insideFences(of: device), at: record.lastTimestamp ?? record.anchorTime ?? 0,
                lat: record.anchorLat ?? 0, lon: record.anchorLon ?? 0)
            effects.publish(layout.state(device: device), payload, qos: 1, retain: true)
        }
        return effects
    }
}
