import FleetFenceCodecs
import FleetFenceJournal
import FleetFenceSettings
import GeofenceEngine
import Logging

/// The service's decisions, and the state they need: the engine, what must still be journaled,
/// and the counters. Every method takes what happened (a message, a tick, a fences file) with the
/// time it happened and returns ``Effects``: what to journal and what to publish, in order. It
/// holds no client, no writer and no clock, so every rule of the service can be tested by
/// calling it (docs/rules.md "The rules" and docs/operations.md "Journal"). ``CoreLoop`` runs it behind one lock and
/// carries its effects out.
struct GeofenceCore {
    var engine: GeofenceEngine
    let layout: TopicLayout
    let router: PositionTopicRouter
    var counters = ServiceCounters()
    // Devices are marked by their place in the engine (`DeviceMarks`), never by their id as a
    // `String`, whose equality would merge two devices whose ids are canonically equivalent
    // (docs/operations.md "Limits and failures"), and one of them would go unwritten.

    /// Devices whose durable state changed: written with their next alert or handed to the
    /// journal after the next tick (a quarter second), whichever comes first.
    var dirtyDevices = DeviceMarks()
    /// Devices whose only change is the time of their latest sample (stale samples must stay
    /// stale across a restart too). Written by ``clockRecords(of:)`` alone, every second and at
    /// a clean stop, so that a busy fleet is not a write per sample: a kill -9 forgets at most
    /// those seconds of "latest sample" times, never an alert.
    var clockOnlyDevices = DeviceMarks()
    var fenceOrigins: [ExactID: JournalFenceRow.Origin] = [:]
    /// The fences file as last applied: a reload acts on the file's own changes only.
    var lastFileFences: [ExactID: FenceDefinition] = [:]
    /// The digest of the file that record is of, when it applied clean (`FencesFileDigest`).
    var lastFileDigest: String?
    /// While a fences file goes into effect a step at a time: the fences set or deleted at run
    /// time since its first step. Its later steps leave them as run time made them, as if the
    /// whole file had gone into effect before (the file's record still takes its version).
    var runtimeFenceChanges: Set<ExactID>?
    /// Devices whose view (position, fences inside) changed since the read model last took them.
    var changedViews = DeviceMarks()
    /// Taken from `changedViews`, not yet handed to the read model.
    private var viewsDue: [DeviceHandle] = []
    /// Whether views taken from `changedViews` wait for the next `takeChangedViews`: a slice can
    /// come back shorter than asked (devices forgotten meanwhile) with more behind it.
    var viewsAreDue: Bool { !viewsDue.isEmpty }
    /// Whether this instance publishes the fence registry (docs/several-instances.md "Several instances").
    var registryLeadership: RegistryLeadership
    /// While the whole registry goes out a slice at a time (`registryRound`, nil: it does not):
    /// the fences whose entry went with their own change since, which its slices skip. The slices
    /// take the fences held when their task began; a fence the file set between the step that owed
    /// the registry and that task went out twice (a named instance's fresh start, under load).
    var registryRound: (number: Int, sentAlready: Set<ExactID>)?
    var registryRounds = 0
    /// Home Assistant and OwnTracks.
    var integrations = IntegrationState()
    /// Device and fence ids past this many bytes are refused (docs/operations.md "Limits and failures").
    static let maxIDBytes = 256
    var transitions: [Transition] = []
    /// The webhooks in force (docs/webhooks.md "Webhooks"); replaced on SIGHUP.
    var webhooks = WebhookRoutes()
    /// Whether a file's fences are each logged (at debug): made and dropped unread, the metadata
    /// alone of those lines was 1.4% of a fresh start's CPU with 100,000 fences (perf).
    var logsEachFileFence = false

    /// `inputs.mappings`, by the index their router format names.
    let mappings: [PositionMapping]

    init(engine: GeofenceEngine, layout: TopicLayout, positionFilters: [String], inputs: ServiceConfiguration.Inputs = .init()) {
        self.engine = engine
        self.layout = layout
        self.mappings = inputs.mappings
        self.router = PositionTopicRouter(
            positionFilters: positionFilters, traccarFilters: inputs.traccarTopics, mappingFilters: inputs.mappings.map(\.topic),
            layout: layout)
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
        case let .payloadDevice(format):
            handleForeign(format: format, topic: topic, payload: payload, arrival: arrival, into: &effects)
        case let .tourSet(id):
            handleTourSet(id: id, payload: payload, into: &effects)
        case let .deviceForget(id):
            forget(device: id, reason: "asked to", into: &effects)
        case let .instanceStatus(name):
            registryLeadership.statusChanged(instance: name, online: Array(UnsafeRawBufferPointer(payload)) == Array("online".utf8))
            if registryLeadership.takeDueRegistry() { addRegistry(to: &effects) }
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
        case .traccar, .mapping, .http: preconditionFailure("formats that name their device in the payload go by handleForeign")
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
        _ = feed(device: device, position: position, format: format, topic: topic, payload: payload, arrival: arrival, into: &effects)
    }

    /// What one position did, for an HTTP caller that answers per position (docs/trackers.md "Connecting trackers").
    /// Named as `fleetfence_positions_total{outcome}` counts them.
    enum PositionOutcome: Sendable, Equatable {
        case accepted
        /// Older than the device's latest: held, to be merged (docs/rules.md "Late samples").
        case late
        case stale
        /// Too old to merge: dropped.
        case tooLate
        case ignored(String)
        case rejected(String)
    }

    /// A decoded position into the engine, with the checks every input shares: its alerts, state and
    /// journal changes go into `effects`, a refusal onto the device's errors topic.
    mutating func feed(
        device: String, position: DecodedPosition, format: PositionTopicRouter.Format, topic: UnsafeRawBufferPointer,
        payload: UnsafeRawBufferPointer, arrival: Double, into effects: inout Effects
    ) -> PositionOutcome {
        let sample = position.sample(arrival: arrival)
        // A sample from the future would make every real one after it stale (docs/operations.md "Limits and
        // failures"); it never becomes the device's latest.
        let maxFutureSeconds = engine.settings.maxFutureSeconds
        if sample.timestamp > arrival + maxFutureSeconds {
            let reason = "ts is \(Int((sample.timestamp - arrival).rounded())) s ahead of its arrival, "
                + "at most \(ConfigurationKey.format(maxFutureSeconds)) s are accepted (\(ConfigurationKey.maxFuture.name))"
            if format == .http {
                countRejection(source: String(decoding: topic, as: UTF8.self), reason: reason, into: &effects)
            } else {
                reject(device: device, topic: String(decoding: topic, as: UTF8.self), payload: payload, reason: reason, into: &effects)
            }
            return .rejected(reason)
        }
        counters.positions += 1
        transitions.removeAll(keepingCapacity: true)
        let handle = engine.handle(for: device)
        let outcome = engine.process(handle, sample: sample, arrival: arrival, into: &transitions)
        let late = outcome.status == .late
        guard outcome.status == .accepted || late else {
            // Too late to merge is dropped as a repeat is: old news, not an error (docs/rules.md "Late samples").
            switch outcome.status {
            case .stale: return .stale
            case .tooLate: return .tooLate
            default: return .rejected("the engine refused the sample")
            }
        }
        changedViews.mark(handle)
        // A late sample is not where the device is: the state keeps its newest sample
        // (docs/rules.md "Late samples"), and integrations hear only the newest.
        if !late {
            integrationsSawSample(
                device: device, format: format, topic: topic, sample: sample, firstSight: outcome.firstSight, into: &effects)
        }
        for transition in transitions { addAlert(transition, arrival: arrival, accuracy: sample.accuracy, to: &effects) }
        publishProgress(of: transitions, into: &effects)
        if outcome.insideChanged || outcome.firstSight {
            // A backlog's merge changed it (the sample ended the backlog, or filled it): shown at the
            // newest accurate sample, which an inaccurate one is not.
            let accurate = sample.accuracy.map { $0 <= engine.settings.maxAccuracyMeters } ?? true
            if late || !accurate, let newest = engine.deviceClock(handle), let time = newest.anchorTime,
                let lat = newest.anchorLat, let lon = newest.anchorLon
            {
                let at = max(transitions.last?.confirmedAt ?? time, time, outcome.stateNotBefore)
                addState(device: device, at: at, lat: lat, lon: lon, integrations: !outcome.onlyShownAgain, to: &effects)
            } else {
                // The sample's own time: alerts of a backlog it ended come before it.
                let at = max(transitions.last?.confirmedAt ?? sample.timestamp, sample.timestamp, outcome.stateNotBefore)
                addState(device: device, at: at, lat: sample.lat, lon: sample.lon, integrations: !outcome.onlyShownAgain, to: &effects)
            }
        }
        if outcome.recordChanged || !transitions.isEmpty {
            dirtyDevices.mark(handle)
        } else {
            clockOnlyDevices.mark(handle)
        }
        // Only this device's record rides with its alert: other dirty devices wait for the next
        // tick, so that an alert never waits for a burst of unrelated device rows. Added to what
        // the step holds: an HTTP batch is one step, and its earlier devices' records ride too.
        if !transitions.isEmpty, dirtyDevices.unmark(handle), let record = engine.deviceRecord(handle) {
            effects.changes.devices.append(record)
        }
        return late ? .late : .accepted
    }

    /// Says why a message was refused, on the device's errors topic and in the log.
    mutating func reject(
        device: String, topic: String, payload: UnsafeRawBufferPointer, reason: String, into effects: inout Effects
    ) {
        effects.publish(layout.errors(device), ErrorPayload.encode(reason: reason, topic: topic, payload: payload), qos: 0, retain: false)
        countRejection(source: topic, reason: reason, into: &effects)
    }

    /// Counts and logs a refusal; an HTTP caller hears the reason in its answer instead of the errors topic.
    mutating func countRejection(source topic: String, reason: String, into effects: inout Effects) {
        counters.rejected += 1
        // A misbehaving publisher must not drown the log: the rest are counted in the stats line.
        if counters.loggedRejectionsThisInterval < 20 {
            counters.loggedRejectionsThisInterval += 1
            effects.log(.warning, "rejected message", ["topic": "\(topic)", "reason": "\(reason)"])
        } else {
            counters.unloggedRejections += 1
        }
    }

    // MARK: Time

    /// Confirms the pending changes of silent devices. The other changed devices' records are
    /// taken after it, a slice at a time (`takeDirtyDevices`, `heldRecords`).
    /// `unheard`: seconds since the last tick in which the service could hear no device (its
    /// broker connection down), which are not the devices' silence (docs/rules.md "The rules").
    mutating func tick(now: Double, unheard: Double = 0) -> Effects {
        var effects = Effects()
        transitions.removeAll(keepingCapacity: true)
        engine.postponeSilence(by: unheard)
        let changed = engine.tick(now: now, into: &transitions)
        timePassed(changed, now: now, into: &effects)
        expireFences(now: now, into: &effects)
        return effects
    }

    /// The devices whose records changed and were not written with an alert, their marks taken
    /// off: a change meanwhile marks a device again.
    mutating func takeDirtyDevices() -> [DeviceHandle] {
        dirtyDevices.take()
    }

    /// The records of `devices` as they are now, held by the writer and written in chunks behind
    /// later alerts: written with a tick's alerts, the hundreds a tick finds under load held them
    /// up. Asked for in slices with the lock let go between them: all of them at once held the
    /// lock 15-57 ms a tick in the soak (45,000 positions/s), positions waiting behind it. A
    /// device that changes again meanwhile is dirty again and written again: never older.
    func heldRecords(of devices: ArraySlice<DeviceHandle>) -> Effects {
        Effects(changes: JournalChanges(heldDevices: devices.compactMap { engine.deviceRecord($0) }))
    }

    /// Every backlog still held merged (at a clean stop, before the last state is written): the
    /// held samples are in memory only (docs/rules.md "Late samples").
    mutating func mergeBacklogs(now: Double) -> Effects {
        var effects = Effects()
        transitions.removeAll(keepingCapacity: true)
        let changed = engine.mergeAllBacklogs(now: now, into: &transitions)
        timePassed(changed, now: now, into: &effects)
        return effects
    }

    /// What the engine decided on time alone (silence, backlogs that ended): the alerts in
    /// `transitions`, and the devices whose inside set changed.
    private mutating func timePassed(_ changed: [StateChange], now: Double, into effects: inout Effects) {
        markMergedBacklogs()
        for transition in transitions { addAlert(transition, arrival: now, to: &effects) }
        publishProgress(of: transitions, into: &effects)
        for change in changed { stateChanged(change, into: &effects) }
        effects.changes.devices = takeDirtyRecords(of: transitions.map(\.device))
    }

    /// Devices whose backlog the engine merged by itself (a tick, a fence change; docs/rules.md
    /// "Late samples"): their records changed. Returns whether there were any.
    @discardableResult
    mutating func markMergedBacklogs() -> Bool {
        let merged = engine.takeMergedBacklogs()
        for device in merged {
            guard let handle = engine.handle(ifHeld: device) else { continue }
            dirtyDevices.mark(handle)
            changedViews.mark(handle)
        }
        return !merged.isEmpty
    }

    /// The state of every dirty device (at a clean stop).
    mutating func dirtyRecords() -> Effects {
        Effects(changes: JournalChanges(devices: takeDirtyRecords(of: nil)))
    }

    /// The devices whose latest-sample times are due; new samples meanwhile mark them again.
    mutating func takeClockOnlyDevices() -> [DeviceHandle] {
        clockOnlyDevices.take()
    }

    /// The latest-sample times and places of `devices`, for the journal's clock log: packed into
    /// one row of the next transaction (`ClockLog`), and the ids of those devices (the fold's).
    /// Asked for in slices with the lock let go between them: building every record at once held
    /// messages up for 20 ms and more with 10,000 devices.
    func clockRecords(of devices: ArraySlice<DeviceHandle>) -> (Effects, [ExactID]) {
        let clocks = devices.compactMap { engine.deviceClock($0) }
        return (Effects(changes: JournalChanges(loggedClocks: clocks)), clocks.map { ExactID($0.device) })
    }

    /// A slice of a fold of the clock log: the clocks of `devices` as they are now, newer than
    /// anything logged of them, held by the writer and written into `device_clocks` a chunk at a
    /// time. `first`: the fold covers the log's rows written before this slice. `last`: once
    /// these are written, those rows go.
    func foldedClocks(of devices: ArraySlice<ExactID>, first: Bool, last: Bool) -> Effects {
        Effects(changes: JournalChanges(
            heldClocks: devices.compactMap { engine.deviceClock(for: $0.string) }, startsClockFold: first,
            endsClockFold: last))
    }

    /// The records of the dirty devices among `devices` (`nil`: all), copied here under the
    /// lock; the writer encodes them.
    mutating func takeDirtyRecords(of devices: [String]?) -> [DeviceRecord] {
        guard let devices else { return dirtyDevices.take().compactMap { engine.deviceRecord($0) } }
        return devices.compactMap { device in
            engine.handle(ifHeld: device).flatMap { dirtyDevices.unmark($0) ? engine.deviceRecord($0) : nil }
        }
    }

    /// Marks `device`'s record to be journaled (by the engine's id: the rare paths that have no handle).
    mutating func markDirty(_ device: String, view: Bool = false) {
        guard let handle = engine.handle(ifHeld: device) else { return }
        dirtyDevices.mark(handle)
        if view { changedViews.mark(handle) }
    }

    /// The journal row of a fence just set, its definition as `FenceDefinitionEncoding` wrote it.
    func fenceRow(_ id: String, origin: JournalFenceRow.Origin, definitionJSON: [UInt8]) -> JournalFenceRow {
        guard let record = engine.fenceRecord(id: id) else { preconditionFailure("fence \(id) was just set") }
        return JournalFenceRow(
            id: id, record: JournalFenceRecord.encode(definition: definitionJSON, generation: record.generation),
            origin: origin)
    }

    // MARK: The read side

    /// Up to `limit` views of devices that changed since the last call: taken in slices, so that
    /// a tick after a burst of a million new devices never holds the lock for all of them.
    mutating func takeChangedViews(limit: Int) -> [DeviceView] {
        if viewsDue.isEmpty { viewsDue = changedViews.take() }
        // Copied out before the rest is shortened: shortened while a slice of it was alive, the
        // whole rest was copied at every call (perf, the soak: 45,000 views a second taken 500 at
        // a time, 2.4% of the service's samples under the core's lock; 0.2% copied out).
        let due = Array(viewsDue.suffix(limit))
        viewsDue.removeLast(due.count)
        return due.compactMap { handle in
            engine.deviceRecord(handle).map { record in
                DeviceView(
                    device: record.device, inside: engine.insideFences(handle), at: record.anchorTime,
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
        read.late = engine.counters.late
        read.tooLate = engine.counters.tooLate
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
    mutating func addAlert(
        _ transition: Transition, arrival: Double, accuracy: Double? = nil, to effects: inout Effects
    ) {
        let alert = AlertRecord(
            transition: transition, payload: AlertPayload.encode(transition, instance: layout.instance), arrival: arrival,
            webhooks: webhooks.matching(transition))
        counters.alerts += 1
        counters.alertsByEvent[transition.event.rawValue, default: 0] += 1
        effects.changes.alerts.append(alert)
        // A tour's events go under its progress topic, a fence's under the alerts.
        let topic = transition.tourID.map { tour in
            layout.progress(device: transition.device, tour: tour, event: transition.event.rawValue)
        } ?? layout.alert(device: transition.device, fence: transition.fenceID, event: transition.event.rawValue)
        effects.publish(topic, alert.payload, qos: 1, retain: false, kind: .alert(alert))
        integrationsAlerted(transition, accuracy: accuracy, into: &effects)
    }

    /// `integrations`: false when the inside set is as it was (`SampleOutcome.onlyShownAgain`).
    mutating func addState(device: String, at: Double, lat: Double, lon: Double, integrations: Bool = true, to effects: inout Effects) {
        let state = DeviceStateChange(device: device, inside: engine.insideFences(of: device), at: at, lat: lat, lon: lon)
        let payload = StatePayload.encode(device: device, inside: state.inside, at: at, lat: lat, lon: lon)
        effects.publish(layout.state(device: device), payload, qos: 1, retain: true, kind: .state(state))
        if integrations { integrationsStateChanged(device: device, inside: state.inside, lat: lat, lon: lon, into: &effects) }
    }

    /// The heap of the core's tables of devices (``MemoryReport/core``): the marks, the views due,
    /// and the integrations' tables, their OwnTracks topics too, in one hold (a few devices speak
    /// OwnTracks). A key is a device's id, counted with the engine's (after a restart it is a
    /// string of its own, read from the journal, and an id over 15 bytes is left out).
    func countDeviceTableBytes() -> Int {
        var bytes = dirtyDevices.allocatedBytes + clockOnlyDevices.allocatedBytes + changedViews.allocatedBytes
            + AllocatedBytes.array(viewsDue) + AllocatedBytes.dictionary(integrations.ownTracksTopics)
            + AllocatedBytes.dictionary(integrations.movedForHomeAssistant)
        for topic in integrations.ownTracksTopics.values { bytes += AllocatedBytes.string(topic) }
        return bytes
    }
}
