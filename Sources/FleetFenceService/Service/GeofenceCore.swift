import FleetFenceCodecs
import Foundation
import GeofenceEngine
import Logging
import MQTT

/// The service's mutable state and its rules of engagement: the engine, what must be journaled,
/// and what to publish. It lives behind one lock (see ``GeofenceService``); every method runs
/// with that lock held, so journal order and publish order are the engine's order.
struct GeofenceCore {
    var engine: GeofenceEngine
    let layout: TopicLayout
    let router: PositionTopicRouter
    let pipeline: JournalPipeline
    let client: MQTTClient
    let logger: Logger
    var counters = ServiceCounters()
    /// Devices whose durable state changed: written with their next alert or handed to the
    /// journal by the next tick (a quarter second), whichever comes first.
    var dirtyDevices: Set<String> = []
    /// Devices whose only change is the time of their latest sample (rule 4 must hold across a
    /// restart too). Written by ``flushClocks(of:)`` alone, every few seconds and at a clean stop,
    /// so that a busy fleet is not a write per sample: a kill -9 forgets at most those seconds
    /// of "latest sample" times, never an alert.
    var clockOnlyDevices: Set<String> = []
    var fenceOrigins: [String: JournalFenceRow.Origin] = [:]
    /// The fences file as last applied: a reload acts on the file's own changes only.
    var lastFileFences: [String: FenceDefinition] = [:]
    private var transitions: [Transition] = []

    init(
        engine: GeofenceEngine, configuration: ServiceConfiguration, pipeline: JournalPipeline,
        client: MQTTClient, logger: Logger
    ) {
        self.engine = engine
        self.pipeline = pipeline
        self.layout = TopicLayout(prefix: configuration.prefix)
        self.router = PositionTopicRouter(positionFilters: configuration.positionTopics, layout: layout)
        self.client = client
        self.logger = logger
    }

    // MARK: Messages

    /// One incoming message: a position or a fence definition.
    /// `topic` as the broker's bytes: turned into a `String` only for an error reply.
    mutating func handle(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, arrival: Double) {
        switch router.route(topic) {
        case let .position(device, format):
            handlePosition(device: device, format: format, topic: topic, payload: payload, arrival: arrival)
        case let .fenceSet(id):
            handleFenceSet(id: id, payload: payload, now: arrival)
        case .noDevice:
            // Its errors topic ends in the empty device level: `<prefix>/errors/`, which `errors/+` matches.
            reject(device: "", topic: String(decoding: topic, as: UTF8.self), payload: payload, reason: "the topic's device id is empty")
        case .unrelated:
            break
        }
    }

    private mutating func handlePosition(
        device: String, format: PositionTopicRouter.Format, topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer,
        arrival: Double
    ) {
        let decoded = switch format {
        case .native: PositionDecoder.decode(payload, deviceID: device)
        case .ownTracks: PositionDecoder.decodeOwnTracks(payload, deviceID: device)
        }
        let position: DecodedPosition
        switch decoded {
        case let .success(value):
            position = value
        case let .failure(rejection):
            if rejection.isIgnored {
                counters.ignored += 1
            } else {
                reject(
                    device: device, topic: String(decoding: topic, as: UTF8.self), payload: payload,
                    reason: rejection.description)
            }
            return
        }
        counters.positions += 1
        let sample = position.sample(arrival: arrival)
        transitions.removeAll(keepingCapacity: true)
        let outcome = engine.process(device: device, sample: sample, arrival: arrival, into: &transitions)
        guard outcome.status == .accepted else { return }
        var outbox = Outbox()
        for transition in transitions { addAlert(transition, to: &outbox) }
        if outcome.insideChanged || outcome.firstSight {
            let at = transitions.last?.confirmedAt ?? sample.timestamp
            addState(device: device, at: at, lat: sample.lat, lon: sample.lon, to: &outbox)
        }
        if outcome.recordChanged || !outbox.transitions.isEmpty {
            dirtyDevices.insert(device)
        } else {
            clockOnlyDevices.insert(device)
        }
        // Only this device's record rides with its alert: other dirty devices wait for the next
        // tick, so that an alert never waits for a burst of unrelated device rows.
        commit(outbox, devices: outbox.transitions.isEmpty ? [] : [device])
    }

    /// Says why a message was refused, on the device's errors topic and in the log.
    mutating func reject(device: String, topic: String, payload: UnsafeRawBufferPointer, reason: String) {
        counters.rejected += 1
        say(layout.errors(device), ErrorPayload.encode(reason: reason, topic: topic, payload: payload))
        // A misbehaving publisher must not drown the log: the rest are counted in the stats line.
        if counters.loggedRejectionsThisInterval < 20 {
            counters.loggedRejectionsThisInterval += 1
            logger.warning("rejected message", metadata: ["topic": "\(topic)", "reason": "\(reason)"])
        } else {
            counters.unloggedRejections += 1
        }
    }

    // MARK: Fences

    private mutating func handleFenceSet(id: String, payload: UnsafeRawBufferPointer, now: Double) {
        let topic = "\(layout.prefix)/fences/\(id)/set"
        if payload.isEmpty {
            if engine.fence(id: id) == nil {
                logger.info("fence delete for an unknown id ignored", metadata: ["fence": "\(id)"])
                return
            }
            removeFence(id: id, now: now)
            logger.notice("fence deleted", metadata: ["fence": "\(id)"])
            return
        }
        do {
            let definition = try FenceDecoder.decodeDefinition(payload, idFromTopic: id)
            try setFence(definition, origin: .runtime)
        } catch {
            rejectFence(id: id, topic: topic, payload: payload, reason: "\(error)")
        }
    }

    mutating func rejectFence(id: String?, topic: String, payload: UnsafeRawBufferPointer, reason: String) {
        counters.fenceErrors += 1
        say(layout.errors("fences"), ErrorPayload.encode(reason: reason, topic: topic, payload: payload))
        logger.warning("fence rejected", metadata: ["fence": "\(id ?? "?")", "reason": "\(reason)"])
    }

    /// A fences file that cannot be read at all is answered where its rejected features are:
    /// whoever follows the errors learns that the fences held stay as they were.
    mutating func rejectFenceFile(_ error: FenceFileError) {
        counters.fenceErrors += 1
        let reason = "fences not loaded: \(error.reason)"
        say(layout.errors("fences"), ErrorPayload.encode(reason: reason, topic: error.path, payload: [UInt8]()))
    }

    /// Validates, clamps, journals and publishes a fence definition.
    mutating func setFence(_ definition: FenceDefinition, origin: JournalFenceRow.Origin) throws {
        var step = JournalPipeline.Step()
        try applyFence(definition, origin: origin, into: &step)
        submit(step)
    }

    /// Puts a definition into effect and adds its journal row and registry entry to `step`
    /// (nothing when a file brings a fence the engine holds as it is). `prepared`: the fence built
    /// and encoded beforehand (a fences file's, see ``FenceFile``). Returns the definition as
    /// journaled.
    @discardableResult
    private mutating func applyFence(
        _ definition: FenceDefinition, prepared: FenceFile.PreparedFence? = nil, origin: JournalFenceRow.Origin,
        into step: inout JournalPipeline.Step
    ) throws -> [UInt8] {
        // Ids that cannot be a topic level never get here: FenceDecoder refuses them.
        let update = try prepared.map { prepared throws(FenceError) in try engine.setFence(prepared.fence) }
            ?? engine.setFence(definition)
        let definitionJSON = prepared?.definitionJSON ?? FenceDefinitionEncoding.encode(definition)
        // The file bringing a fence exactly as held (set at run time, say) leaves its origin.
        if update.unchanged, origin == .file, fenceOrigins[definition.id] != nil { return definitionJSON }
        fenceOrigins[definition.id] = origin
        counters.fenceChanges += 1
        if let requested = update.fence.clampedFrom, let effective = update.fence.effectiveRadius {
            logger.notice(
                "fence radius clamped",
                metadata: ["fence": "\(definition.id)", "radius": "\(requested)", "effective": "\(effective)"])
        }
        // A file of 100,000 fences is one "fences loaded" line at info, not 100,000.
        logger.log(
            level: origin == .runtime ? .info : .debug, update.replaced ? "fence replaced" : "fence added",
            metadata: ["fence": "\(definition.id)", "origin": "\(origin.rawValue)"])
        step.fences.append(fenceRow(definition.id, origin: origin, definitionJSON: definitionJSON))
        step.messages.append(
            Outbox.Message(
                topic: layout.fence(definition.id),
                payload: prepared?.registryPayload ?? FenceRegistryPayload.encode(update.fence), qos: 1, retain: true))
        return definitionJSON
    }

    /// Removes a fence: devices inside it exit with reason `fence_removed`.
    mutating func removeFence(id: String, now: Double) {
        removeFences(ids: [id], now: now)
    }

    /// Removes fences held (others are skipped), in one pass over the devices.
    mutating func removeFences(ids: [String], now: Double) {
        let held = ids.filter { engine.fence(id: $0) != nil }
        guard !held.isEmpty else { return }
        let removal = engine.removeFences(ids: held, now: now)
        var outbox = Outbox()
        for transition in removal.transitions { addAlert(transition, to: &outbox) }
        for change in removal.changes {
            dirtyDevices.insert(change.device)
            addState(device: change.device, at: change.at, lat: change.lat, lon: change.lon, to: &outbox)
        }
        for id in held {
            fenceOrigins[id] = nil
            counters.fenceChanges += 1
            // An empty retained message clears the registry entry.
            outbox.publish(layout.fence(id), [], qos: 1, retain: true)
        }
        // The exits and the removal are journaled together: a crash between them would lose
        // the exits for good (a restart drops state at fences it no longer holds).
        commit(outbox, devices: nil, removedFences: held)
    }

    /// Brings the changes of `fences.file` into effect, as if set at run time: fences new or
    /// changed in the file since it was last applied are set, fences gone from it are removed.
    /// A fence the file did not change keeps whatever run time made of it (replaced, deleted).
    mutating func applyFenceFile(_ loaded: FenceFile, now: Double) {
        let path = loaded.contents.path
        for problem in loaded.contents.problems {
            counters.fenceErrors += 1
            logger.warning("fence in file rejected", metadata: ["file": "\(path)", "reason": "\(problem)"])
            say(layout.errors("fences"), ErrorPayload.encode(reason: problem, topic: path, payload: [UInt8]()))
        }
        // Room for the changed ones only: reserving on a full table rehashes all of it.
        let changed = loaded.prepared.count { $0 != nil }
        engine.reserveFences(engine.fenceCount + changed)
        fenceOrigins.reserveCapacity(fenceOrigins.count + changed)
        lastFileFences.reserveCapacity(lastFileFences.count + changed)
        let newStep = {
            var step = JournalPipeline.Step()
            step.fileFences.reserveCapacity(min(changed, Self.fenceFileChunk))
            return step
        }
        var step = newStep()
        // Reloads run one at a time (at start, then each SIGHUP in turn), so the record the file
        // was compared with is still the record: nothing prepared means unchanged. The record
        // changes in place by what changed (the file's ids are unique); a feature that no longer
        // reads, or is rejected, keeps its previous version there.
        for (definition, prepared) in zip(loaded.contents.definitions, loaded.prepared) {
            guard let prepared else { continue }
            do {
                let definitionJSON = try applyFence(definition, prepared: try prepared.get(), origin: .file, into: &step)
                lastFileFences[definition.id] = definition
                // The file's record changes by what changed in the file, in the fence's transaction.
                step.fileFences[definition.id] = definitionJSON
            } catch {
                counters.fenceErrors += 1
                logger.warning(
                    "fence in file rejected", metadata: ["fence": "\(definition.id)", "reason": "\(error)"])
                say(
                    layout.errors("fences"),
                    ErrorPayload.encode(reason: "fence \(definition.id): \(error)", topic: path, payload: [UInt8]()))
            }
            // In chunks: the writer journals and publishes one while the next is applied.
            if step.fences.count >= Self.fenceFileChunk {
                submit(step)
                step = newStep()
            }
        }
        submit(step)
        let gone = fenceOrigins.compactMap { id, origin in
            origin == .file && !loaded.contents.listedIDs.contains(id) ? id : nil
        }.sorted()
        removeFences(ids: gone, now: now)
        for id in gone { logger.notice("fence removed from file", metadata: ["fence": "\(id)"]) }
        let unlisted = lastFileFences.keys.filter { !loaded.contents.listedIDs.contains($0) }
        for id in unlisted { lastFileFences[id] = nil }
        submit(JournalPipeline.Step(removedFileFences: unlisted))
    }

    private static let fenceFileChunk = 5_000

    /// Publishes every fence retained, as the service holds it (at start, after a reconnect).
    /// Through the pipeline, so that a fence changed meanwhile is published after, never before.
    func publishRegistry() {
        submit(JournalPipeline.Step(registry: engine.fences))
    }


    // MARK: Time

    /// Confirms the pending changes of silent devices and writes batched device state.
    mutating func tick(now: Double) {
        transitions.removeAll(keepingCapacity: true)
        let changed = engine.tick(now: now, into: &transitions)
        var outbox = Outbox()
        for transition in transitions { addAlert(transition, to: &outbox) }
        for change in changed {
            dirtyDevices.insert(change.device)
            addState(device: change.device, at: change.at, lat: change.lat, lon: change.lon, to: &outbox)
        }
        // Under load a tick finds hundreds of dirty devices: written with its alerts, they held
        // the next alerts up.
        commit(outbox, devices: transitions.map(\.device), holdingTheRest: true)
    }

    // MARK: Durability

    /// Publishes a message that needs no journal, in order with the alerts queued before it.
    private func say(_ topic: String, _ payload: [UInt8]) {
        pipeline.submit(JournalPipeline.Step(messages: [Outbox.Message(topic: topic, payload: payload, qos: 0, retain: false)]))
    }

    /// Hands the outbox's transitions and the state of the dirty `devices` among those named
    /// (`nil`: every dirty device) to the journal pipeline, which writes them and then publishes
    /// the outbox's messages. `holdingTheRest`: the other dirty devices go too, as records that
    /// may wait behind later alerts (``JournalPipeline/Step/heldDevices``).
    mutating func commit(
        _ outbox: Outbox, devices: [String]?, removedFences: [String] = [], holdingTheRest: Bool = false
    ) {
        var step = JournalPipeline.Step(transitions: outbox.transitions, removedFences: removedFences, messages: outbox.messages)
        step.devices = takeDirtyRecords(of: devices)
        if holdingTheRest { step.heldDevices = takeDirtyRecords(of: nil) }
        counters.alerts += outbox.transitions.count
        submit(step)
    }

    private func submit(_ step: JournalPipeline.Step) {
        if !step.isEmpty { pipeline.submit(step) }
    }

    /// Writes the state of every dirty device (periodically and at shutdown).
    mutating func flush() {
        if !dirtyDevices.isEmpty { pipeline.submit(JournalPipeline.Step(devices: takeDirtyRecords(of: nil))) }
    }

    /// The devices whose latest-sample times are due, taken out of the set in one move: new
    /// samples meanwhile start a new set. Not keeping capacity: after a burst of a million new
    /// devices the set would stay a million entries large for good.
    mutating func takeClockOnlyDevices() -> [String] {
        defer { clockOnlyDevices = [] }
        return Array(clockOnlyDevices)
    }

    /// Hands the latest-sample times of `devices` to the pipeline as records that may wait behind
    /// alerts. Called in slices with the lock let go between them: building every record at once
    /// held messages up for 20 ms and more with 10,000 devices.
    mutating func flushClocks(of devices: ArraySlice<String>) {
        submit(JournalPipeline.Step(heldDevices: devices.compactMap { engine.deviceRecord(for: $0) }))
    }

    /// The records of the dirty devices among `devices` (`nil`: all), copied here under the
    /// lock; the pipeline encodes them.
    private mutating func takeDirtyRecords(of devices: [String]?) -> [DeviceRecord] {
        guard let devices else {
            defer { dirtyDevices.removeAll() }
            return dirtyDevices.compactMap { engine.deviceRecord(for: $0) }
        }
        return devices.compactMap { dirtyDevices.remove($0).flatMap { engine.deviceRecord(for: $0) } }
    }

    /// The journal row of a fence just set, its definition as `FenceDefinitionEncoding` wrote it.
    private func fenceRow(_ id: String, origin: JournalFenceRow.Origin, definitionJSON: [UInt8]) -> JournalFenceRow {
        guard let record = engine.fenceRecord(id: id) else { preconditionFailure("fence \(id) was just set") }
        return JournalFenceRow(
            id: id, record: JournalFenceRecord.encode(definition: definitionJSON, generation: record.generation),
            origin: origin)
    }

    // MARK: Payloads

    /// The alert's payload is encoded once: it is both the message and the journal's `alert`.
    private func addAlert(_ transition: Transition, to outbox: inout Outbox) {
        let payload = AlertPayload.encode(transition)
        outbox.transitions.append(JournalTransition(transition, alertJSON: payload))
        outbox.publish(
            layout.alert(device: transition.device, fence: transition.fenceID, event: transition.event.rawValue),
            payload, qos: 1, retain: false)
    }

    private func addState(device: String, at: Double, lat: Double, lon: Double, to outbox: inout Outbox) {
        let payload = StatePayload.encode(
            device: device, inside: engine.insideFences(of: device), at: at, lat: lat, lon: lon)
        outbox.publish(layout.state(device: device), payload, qos: 1, retain: true)
    }
}
