import FleetFenceCodecs
import FleetFenceJournal
import GeofenceEngine
import Logging

/// The service's decisions, and the state they need: the engine, what must still be journaled,
/// and the counters. Every method takes what happened (a message, a tick, a fences file) with the
/// time it happened and returns ``Effects``: what to journal and what to publish, in order. It
/// holds no client, no writer and no clock, so every rule of the service can be tested by
/// calling it (README, "The rules" and "Journal"). ``CoreLoop`` runs it behind one lock and
/// carries its effects out.
struct GeofenceCore {
    var engine: GeofenceEngine
    let layout: TopicLayout
    let router: PositionTopicRouter
    var counters = ServiceCounters()
    /// Devices whose durable state changed: written with their next alert or handed to the
    /// journal by the next tick (a quarter second), whichever comes first.
    var dirtyDevices: Set<String> = []
    /// Devices whose only change is the time of their latest sample (stale samples must stay
    /// stale across a restart too). Written by ``clockRecords(of:)`` alone, every few seconds and
    /// at a clean stop, so that a busy fleet is not a write per sample: a kill -9 forgets at most
    /// those seconds of "latest sample" times, never an alert.
    var clockOnlyDevices: Set<String> = []
    var fenceOrigins: [String: JournalFenceRow.Origin] = [:]
    /// The fences file as last applied: a reload acts on the file's own changes only.
    var lastFileFences: [String: FenceDefinition] = [:]
    /// Devices whose view (position, fences inside) changed since the read model last took them.
    var changedViews: Set<String> = []
    /// Taken from `changedViews`, not yet handed to the read model.
    private var viewsDue: [String] = []
    /// Whether this instance publishes the fence registry (README, "Several instances").
    var registryLeadership: RegistryLeadership
    /// Home Assistant and OwnTracks.
    var integrations = IntegrationState()
    /// Device and fence ids past this many bytes are refused (README, "Limits and failures").
    static let maxIDBytes = 256
    private var transitions: [Transition] = []

    init(engine: GeofenceEngine, layout: TopicLayout, positionFilters: [String]) {
        self.engine = engine
        self.layout = layout
        self.router = PositionTopicRouter(positionFilters: positionFilters, layout: layout)
        self.registryLeadership = RegistryLeadership(instance: layout.instance)
    }

    // MARK: Messages

    /// One incoming message: a position or a fence definition.
    /// `topic` as the broker's bytes: turned into a `String` only for an error reply.
    mutating func handle(topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, arrival: Double) -> Effects {
        var effects = Effects()
        switch router.route(topic) {
        case let .position(device, format):
            handlePosition(device: device, format: format, topic: topic, payload: payload, arrival: arrival, into: &effects)
        case let .fenceSet(id):
            handleFenceSet(id: id, payload: payload, now: arrival, into: &effects)
        case .noDevice:
            // Its errors topic ends in the empty device level: `<prefix>/errors/`, which `errors/+` matches.
            reject(
                device: "", topic: String(decoding: topic, as: UTF8.self), payload: payload,
                reason: "the topic's device id is empty", into: &effects)
        case let .instanceStatus(name):
            registryLeadership.statusChanged(instance: name, online: Array(UnsafeRawBufferPointer(payload)) == Array("online".utf8))
            if registryLeadership.takeDueRegistry() { effects.registry = engine.fences }
        case .unrelated:
            break
        }
        return effects
    }

    private mutating func handlePosition(
        device: String, format: PositionTopicRouter.Format, topic: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer,
        arrival: Double, into effects: inout Effects
    ) {
        // An id this long cannot be a state or alert topic level that fits MQTT's limits, and its
        // own errors topic would not either.
        guard device.utf8.count <= Self.maxIDBytes else {
            reject(
                device: "", topic: String(decoding: topic.prefix(300), as: UTF8.self), payload: payload,
                reason: "device id is \(device.utf8.count) bytes long, at most \(Self.maxIDBytes) are accepted", into: &effects)
            return
        }
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
                    reason: rejection.description, into: &effects)
            }
            return
        }
        let sample = position.sample(arrival: arrival)
        // A sample from the future would make every real one after it stale (README, "Limits and
        // failures"); it never becomes the device's latest.
        let maxFutureSeconds = engine.settings.maxFutureSeconds
        if sample.timestamp > arrival + maxFutureSeconds {
            reject(
                device: device, topic: String(decoding: topic, as: UTF8.self), payload: payload,
                reason: "ts is \(Int((sample.timestamp - arrival).rounded())) s ahead of its arrival, "
                    + "at most \(ConfigurationKey.format(maxFutureSeconds)) s are accepted (geofence.max_future_s)",
                into: &effects)
            return
        }
        counters.positions += 1
        transitions.removeAll(keepingCapacity: true)
        let outcome = engine.process(device: device, sample: sample, arrival: arrival, into: &transitions)
        guard outcome.status == .accepted else { return }
        changedViews.insert(device)
        integrationsSawSample(
            device: device, format: format, topic: topic, sample: sample, firstSight: outcome.firstSight, into: &effects)
        for transition in transitions { addAlert(transition, arrival: arrival, accuracy: sample.accuracy, to: &effects) }
        if outcome.insideChanged || outcome.firstSight {
            let at = transitions.last?.confirmedAt ?? sample.timestamp
            addState(device: device, at: at, lat: sample.lat, lon: sample.lon, to: &effects)
        }
        if outcome.recordChanged || !transitions.isEmpty {
            dirtyDevices.insert(device)
        } else {
            clockOnlyDevices.insert(device)
        }
        // Only this device's record rides with its alert: other dirty devices wait for the next
        // tick, so that an alert never waits for a burst of unrelated device rows.
        if !transitions.isEmpty { effects.changes.devices = takeDirtyRecords(of: [device]) }
    }

    /// Says why a message was refused, on the device's errors topic and in the log.
    private mutating func reject(
        device: String, topic: String, payload: UnsafeRawBufferPointer, reason: String, into effects: inout Effects
    ) {
        counters.rejected += 1
        effects.publish(layout.errors(device), ErrorPayload.encode(reason: reason, topic: topic, payload: payload), qos: 0, retain: false)
        // A misbehaving publisher must not drown the log: the rest are counted in the stats line.
        if counters.loggedRejectionsThisInterval < 20 {
            counters.loggedRejectionsThisInterval += 1
            effects.log(.warning, "rejected message", ["topic": "\(topic)", "reason": "\(reason)"])
        } else {
            counters.unloggedRejections += 1
        }
    }

    // MARK: Fences

    /// What a fence `set` or delete did, for whoever asked (the HTTP interface answers with it).
    enum FenceCommandOutcome: Sendable {
        case set(Fence, created: Bool)
        case deleted
        case unknown
        case rejected(String)
    }

    /// A fence definition (`<prefix>/fences/<id>/set`, `PUT /api/fences/{id}`), or with an empty
    /// payload a delete: one path for both, so that they cannot differ.
    @discardableResult
    mutating func handleFenceSet(
        id: String, payload: UnsafeRawBufferPointer, now: Double, into effects: inout Effects
    ) -> FenceCommandOutcome {
        let topic = "\(layout.prefix)/fences/\(id)/set"
        guard !id.isEmpty else {
            let reason = "the topic's fence id is empty"
            rejectFence(id: id, topic: topic, payload: payload, reason: reason, into: &effects)
            return .rejected(reason)
        }
        if payload.isEmpty {
            if engine.fence(id: id) == nil {
                effects.log(.info, "fence delete for an unknown id ignored", ["fence": "\(id)"])
                return .unknown
            }
            removeFences(ids: [id], now: now, into: &effects)
            effects.log(.notice, "fence deleted", ["fence": "\(id)"])
            return .deleted
        }
        do {
            let definition = try FenceDecoder.decodeDefinition(payload, idFromTopic: id)
            let update = try applyFence(definition, origin: .runtime, into: &effects).update
            return .set(update.fence, created: !update.replaced)
        } catch {
            rejectFence(id: id, topic: topic, payload: payload, reason: "\(error)", into: &effects)
            return .rejected("\(error)")
        }
    }

    /// The same, for a caller that waits for the outcome.
    mutating func setFence(id: String, payload: [UInt8], now: Double) -> (Effects, FenceCommandOutcome) {
        var effects = Effects()
        let outcome = payload.withUnsafeBytes { handleFenceSet(id: id, payload: $0, now: now, into: &effects) }
        return (effects, outcome)
    }

    private mutating func rejectFence(
        id: String?, topic: String, payload: UnsafeRawBufferPointer, reason: String, into effects: inout Effects
    ) {
        counters.fenceErrors += 1
        effects.publish(layout.errors("fences"), ErrorPayload.encode(reason: reason, topic: topic, payload: payload), qos: 0, retain: false)
        effects.log(.warning, "fence rejected", ["fence": "\(id ?? "?")", "reason": "\(reason)"])
    }

    /// A fences file that cannot be read at all is answered where its rejected features are:
    /// whoever follows the errors learns that the fences held stay as they were.
    mutating func rejectFenceFile(_ error: FenceFileError) -> Effects {
        var effects = Effects()
        fenceFileProblem("fences not loaded: \(error.reason)", path: error.path, into: &effects)
        effects.log(.error, "fences not loaded; keeping the fences held", ["error": "\(error)"])
        return effects
    }

    private mutating func fenceFileProblem(_ reason: String, path: String, into effects: inout Effects) {
        counters.fenceErrors += 1
        effects.publish(layout.errors("fences"), ErrorPayload.encode(reason: reason, topic: path, payload: [UInt8]()), qos: 0, retain: false)
    }

    /// Validates, clamps, journals and publishes a fence definition (a test's or a tool's; the
    /// service's come by message or file).
    mutating func setFence(_ definition: FenceDefinition, origin: JournalFenceRow.Origin) throws -> Effects {
        var effects = Effects()
        try applyFence(definition, origin: origin, into: &effects)
        return effects
    }

    /// Puts a definition into effect and adds its journal row and registry entry to `effects`
    /// (nothing when a file brings a fence the engine holds as it is). `prepared`: the fence built
    /// and encoded beforehand (a fences file's, see ``FenceFile``). Returns the definition as
    /// journaled.
    @discardableResult
    private mutating func applyFence(
        _ definition: FenceDefinition, prepared: FenceFile.PreparedFence? = nil, origin: JournalFenceRow.Origin,
        into effects: inout Effects
    ) throws -> (definitionJSON: [UInt8], update: GeofenceEngine.FenceUpdate) {
        // Ids that cannot be a topic level never get here: FenceDecoder refuses them.
        let update = try prepared.map { prepared throws(FenceError) in try engine.setFence(prepared.fence) }
            ?? engine.setFence(definition)
        let definitionJSON = prepared?.definitionJSON ?? FenceDefinitionEncoding.encode(definition)
        // The file bringing a fence exactly as held (set at run time, say) leaves its origin.
        if update.unchanged, origin == .file, fenceOrigins[definition.id] != nil { return (definitionJSON, update) }
        fenceOrigins[definition.id] = origin
        counters.fenceChanges += 1
        effects.heldFences.append(update.fence)
        if let requested = update.fence.clampedFrom, let effective = update.fence.effectiveRadius {
            effects.log(
                .notice, "fence radius clamped",
                ["fence": "\(definition.id)", "radius": "\(requested)", "effective": "\(effective)"])
        }
        // A file of 100,000 fences is one "fences loaded" line at info, not 100,000.
        effects.log(
            origin == .runtime ? .info : .debug, update.replaced ? "fence replaced" : "fence added",
            ["fence": "\(definition.id)", "origin": "\(origin.rawValue)"])
        effects.changes.fences.append(fenceRow(definition.id, origin: origin, definitionJSON: definitionJSON))
        if registryLeadership.isLeader {
            effects.publish(
                layout.fence(definition.id), prepared?.registryPayload ?? FenceRegistryPayload.encode(update.fence),
                qos: 1, retain: true)
        }
        return (definitionJSON, update)
    }

    /// Removes the fences held among `ids` (others are skipped), in one pass over the devices:
    /// devices inside exit with reason `fence_removed`.
    mutating func removeFences(ids: [String], now: Double) -> Effects {
        var effects = Effects()
        removeFences(ids: ids, now: now, into: &effects)
        return effects
    }

    private mutating func removeFences(ids: [String], now: Double, into effects: inout Effects) {
        let held = ids.filter { engine.fence(id: $0) != nil }
        guard !held.isEmpty else { return }
        let removal = engine.removeFences(ids: held, now: now)
        for transition in removal.transitions { addAlert(transition, arrival: now, to: &effects) }
        effects.droppedFences += held
        for change in removal.changes {
            dirtyDevices.insert(change.device)
            changedViews.insert(change.device)
            addState(device: change.device, at: change.at, lat: change.lat, lon: change.lon, to: &effects)
        }
        for id in held {
            fenceOrigins[id] = nil
            counters.fenceChanges += 1
            // An empty retained message clears the registry entry.
            if registryLeadership.isLeader { effects.publish(layout.fence(id), [], qos: 1, retain: true) }
        }
        // The exits and the removal are journaled together: a crash between them would lose
        // the exits for good (a restart drops state at fences it no longer holds).
        effects.changes.removedFences += held
        effects.changes.devices += takeDirtyRecords(of: nil)
    }

    /// Brings the changes of `fences.file` into effect, as if set at run time: fences new or
    /// changed in the file since it was last applied are set, fences gone from it are removed.
    /// A fence the file did not change keeps whatever run time made of it (replaced, deleted).
    /// The effects come in chunks through `emit`, so that the writer journals and publishes one
    /// while the next is applied.
    mutating func applyFenceFile(_ loaded: FenceFile, now: Double, emit: (Effects) -> Void) {
        let path = loaded.contents.path
        var effects = Effects()
        for problem in loaded.contents.problems {
            effects.log(.warning, "fence in file rejected", ["file": "\(path)", "reason": "\(problem)"])
            fenceFileProblem(problem, path: path, into: &effects)
        }
        // Room for the changed ones only: reserving on a full table rehashes all of it.
        let changed = loaded.prepared.count { $0 != nil }
        engine.reserveFences(engine.fenceCount + changed)
        fenceOrigins.reserveCapacity(fenceOrigins.count + changed)
        lastFileFences.reserveCapacity(lastFileFences.count + changed)
        effects.changes.fileFences.reserveCapacity(min(changed, Self.fenceFileChunk))
        // Reloads run one at a time (at start, then each SIGHUP in turn), so the record the file
        // was compared with is still the record: nothing prepared means unchanged. The record
        // changes in place by what changed (the file's ids are unique); a feature that no longer
        // reads, or is rejected, keeps its previous version there.
        for (definition, prepared) in zip(loaded.contents.definitions, loaded.prepared) {
            guard let prepared else { continue }
            do {
                let definitionJSON = try applyFence(definition, prepared: try prepared.get(), origin: .file, into: &effects).definitionJSON
                lastFileFences[definition.id] = definition
                // The file's record changes by what changed in the file, in the fence's transaction.
                effects.changes.fileFences[definition.id] = definitionJSON
            } catch {
                effects.log(.warning, "fence in file rejected", ["fence": "\(definition.id)", "reason": "\(error)"])
                fenceFileProblem("fence \(definition.id): \(error)", path: path, into: &effects)
            }
            if effects.changes.fences.count >= Self.fenceFileChunk {
                emit(effects)
                effects = Effects()
                effects.changes.fileFences.reserveCapacity(min(changed, Self.fenceFileChunk))
            }
        }
        let gone = fenceOrigins.compactMap { id, origin in
            origin == .file && !loaded.contents.listedIDs.contains(id) ? id : nil
        }.sorted()
        removeFences(ids: gone, now: now, into: &effects)
        for id in gone { effects.log(.notice, "fence removed from file", ["fence": "\(id)"]) }
        let unlisted = lastFileFences.keys.filter { !loaded.contents.listedIDs.contains($0) }
        for id in unlisted { lastFileFences[id] = nil }
        effects.changes.removedFileFences += unlisted
        emit(effects)
    }

    private static let fenceFileChunk = 5_000

    /// Every fence retained, as the service holds it (at start, after a reconnect: a broker may have
    /// lost its retained store). Through the writer, so that a fence changed meanwhile is published
    /// after, never before. A named instance waits until it knows whether it leads.
    mutating func connected() -> Effects {
        registryLeadership.connected()
        return registryLeadership.takeDueRegistry() ? Effects(registry: engine.fences) : Effects()
    }

    // MARK: Time

    /// Confirms the pending changes of silent devices and hands batched device state over.
    mutating func tick(now: Double) -> Effects {
        var effects = Effects()
        transitions.removeAll(keepingCapacity: true)
        let changed = engine.tick(now: now, into: &transitions)
        for transition in transitions { addAlert(transition, arrival: now, to: &effects) }
        for change in changed {
            dirtyDevices.insert(change.device)
            changedViews.insert(change.device)
            addState(device: change.device, at: change.at, lat: change.lat, lon: change.lon, to: &effects)
        }
        effects.changes.devices = takeDirtyRecords(of: transitions.map(\.device))
        // Under load a tick finds hundreds of dirty devices: written with its alerts, they held
        // the next alerts up.
        effects.changes.heldDevices = takeDirtyRecords(of: nil)
        return effects
    }

    /// The state of every dirty device (at a clean stop).
    mutating func dirtyRecords() -> Effects {
        Effects(changes: JournalChanges(devices: takeDirtyRecords(of: nil)))
    }

    /// The devices whose latest-sample times are due, taken out of the set in one move: new
    /// samples meanwhile start a new set. Not keeping capacity: after a burst of a million new
    /// devices the set would stay a million entries large for good.
    mutating func takeClockOnlyDevices() -> [String] {
        defer { clockOnlyDevices = [] }
        return Array(clockOnlyDevices)
    }

    /// The latest-sample times of `devices`, as records that may wait behind alerts. Asked for in
    /// slices with the lock let go between them: building every record at once held messages up
    /// for 20 ms and more with 10,000 devices.
    func clockRecords(of devices: ArraySlice<String>) -> Effects {
        Effects(changes: JournalChanges(heldDevices: devices.compactMap { engine.deviceRecord(for: $0) }))
    }

    /// The records of the dirty devices among `devices` (`nil`: all), copied here under the
    /// lock; the writer encodes them.
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

    // MARK: The read side

    /// Up to `limit` views of devices that changed since the last call: taken in slices, so that
    /// a tick after a burst of a million new devices never holds the lock for all of them.
    mutating func takeChangedViews(limit: Int) -> [DeviceView] {
        if viewsDue.isEmpty {
            viewsDue = Array(changedViews)
            // Not keeping capacity: after a burst of new devices the set would stay that large.
            changedViews = []
        }
        let slice = viewsDue.suffix(limit)
        defer { viewsDue.removeLast(slice.count) }
        return slice.compactMap { device in
            engine.deviceRecord(for: device).map { record in
                DeviceView(
                    device: device, inside: engine.insideFences(of: device), at: record.anchorTime,
                    lat: record.anchorLat, lon: record.anchorLon, lastSeen: record.lastTimestamp,
                    lastLat: record.anchorLat, lastLon: record.anchorLon, seq: record.seq)
            }
        }
    }

    var readCounters: ReadModel.Counters {
        var read = ReadModel.Counters()
        read.positions = counters.positions
        read.accepted = engine.counters.accepted
        read.alerts = counters.alerts
        read.rejected = counters.rejected
        read.ignored = counters.ignored
        read.stale = engine.counters.stale
        read.inaccurate = engine.counters.inaccurate
        read.fenceChanges = counters.fenceChanges
        read.fenceErrors = counters.fenceErrors
        read.devices = engine.deviceCount
        read.fences = engine.fenceCount
        read.alertsByEvent = counters.alertsByEvent
        return read
    }

    // MARK: Payloads

    /// The alert's payload is encoded once: it is both the message and the journal's `alert`.
    private mutating func addAlert(
        _ transition: Transition, arrival: Double, accuracy: Double? = nil, to effects: inout Effects
    ) {
        let alert = AlertRecord(
            transition: transition, payload: AlertPayload.encode(transition, instance: layout.instance), arrival: arrival)
        counters.alerts += 1
        counters.alertsByEvent[transition.event.rawValue, default: 0] += 1
        effects.changes.alerts.append(alert)
        effects.publish(
            layout.alert(device: transition.device, fence: transition.fenceID, event: transition.event.rawValue),
            alert.payload, qos: 1, retain: false, kind: .alert(alert))
        integrationsAlerted(transition, accuracy: accuracy, into: &effects)
    }

    private mutating func addState(device: String, at: Double, lat: Double, lon: Double, to effects: inout Effects) {
        let state = DeviceStateChange(device: device, inside: engine.insideFences(of: device), at: at, lat: lat, lon: lon)
        let payload = StatePayload.encode(device: device, inside: state.inside, at: at, lat: lat, lon: lon)
        effects.publish(layout.state(device: device), payload, qos: 1, retain: true, kind: .state(state))
        integrationsStateChanged(device: device, inside: state.inside, lat: lat, lon: lon, into: &effects)
    }
}
