import FleetFenceCodecs
import FleetFenceJournal
import GeofenceEngine

/// Fences at run time, from the set topic, the HTTP interface and the fences file (docs/topics-and-payloads.md
/// "Fences"): validated, journaled, published in the registry, and what they do to devices.
extension GeofenceCore {

    /// What a `set` or delete of a definition (a fence, a tour) did, for whoever asked: the
    /// HTTP interface answers with it.
    enum CommandOutcome<Held: Sendable>: Sendable {
        case set(Held, created: Bool)
        case deleted
        case unknown
        case rejected(String)
    }

    /// A fence definition (`<prefix>/fences/<id>/set`, `PUT /api/fences/{id}`), or with an empty
    /// payload a delete: one path for both, so that they cannot differ.
    @discardableResult
    mutating func handleFenceSet(
        id: String, payload: UnsafeRawBufferPointer, now: Double, into effects: inout Effects
    ) -> CommandOutcome<Fence> {
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
            runtimeFenceChanges?.insert(ExactID(id))
            effects.log(.notice, "fence deleted", ["fence": "\(id)"])
            return .deleted
        }
        do {
            let definition = try FenceDecoder.decodeDefinition(payload, idFromTopic: id)
            let update = try applyFence(definition, origin: .runtime, now: now, into: &effects).update
            return .set(update.fence, created: !update.replaced)
        } catch {
            rejectFence(id: id, topic: topic, payload: payload, reason: "\(error)", into: &effects)
            return .rejected("\(error)")
        }
    }

    /// The same, for a caller that waits for the outcome.
    mutating func setFence(id: String, payload: [UInt8], now: Double) -> (Effects, CommandOutcome<Fence>) {
        var effects = Effects()
        let outcome = payload.withUnsafeBytes { handleFenceSet(id: id, payload: $0, now: now, into: &effects) }
        return (effects, outcome)
    }

    mutating func rejectFence(
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
    mutating func setFence(_ definition: FenceDefinition, origin: JournalFenceRow.Origin, now: Double = 0) throws -> Effects {
        var effects = Effects()
        try applyFence(definition, origin: origin, now: now, into: &effects)
        return effects
    }

    /// Puts a definition into effect and adds its journal row and registry entry to `effects`
    /// (nothing when a file brings a fence the engine holds as it is). `prepared`: the fence built
    /// and encoded beforehand (a fences file's, see ``FenceFile``). `registry: false` leaves the
    /// entry to a round of the whole registry after (a large file's, ``FenceFileProgress``).
    /// Returns the definition as journaled.
    @discardableResult
    private mutating func applyFence(
        _ definition: FenceDefinition, prepared: FenceFile.PreparedFence? = nil, origin: JournalFenceRow.Origin,
        registry: Bool = true, now: Double, into effects: inout Effects
    ) throws -> (definitionJSON: [UInt8], update: GeofenceEngine.FenceUpdate) {
        // Ids that cannot be a topic level never get here: FenceDecoder refuses them.
        let previousName = engine.fence(id: definition.id).map(Self.displayName)
        let update = try prepared.map { prepared throws(FenceError) in try engine.setFence(prepared.fence, now: now) }
            ?? engine.setFence(definition, now: now)
        let definitionJSON = prepared?.definitionJSON ?? FenceDefinitionEncoding.encode(definition)
        if origin == .runtime { runtimeFenceChanges?.insert(ExactID(definition.id)) }
        // The file bringing a fence exactly as held (set at run time, say) leaves its origin.
        if update.unchanged, origin == .file, fenceOrigins[ExactID(definition.id)] != nil { return (definitionJSON, update) }
        // Not run time's yet: the file's (or one the restore could not build, whose row still is).
        if origin == .runtime, fenceOrigins[ExactID(definition.id)] != .runtime { keepFileRecord(of: definition.id, into: &effects) }
        fenceOrigins[ExactID(definition.id)] = origin
        counters.fenceChanges += 1
        effects.heldFences.append(update.fence)
        if let requested = update.fence.clampedFrom, let effective = update.fence.effectiveRadius {
            effects.log(
                .notice, "fence radius clamped",
                ["fence": "\(definition.id)", "radius": "\(requested)", "effective": "\(effective)"])
        }
        // A file of 100,000 fences is one "fences loaded" line at info, not 100,000.
        if origin == .runtime || logsEachFileFence {
            effects.log(
                origin == .runtime ? .info : .debug, update.replaced ? "fence replaced" : "fence added",
                ["fence": "\(definition.id)", "origin": "\(origin.rawValue)"])
        }
        // A replace that stops matching devices inside exits them (reason unassigned), in the
        // fence's own transaction.
        for transition in update.transitions { addAlert(transition, arrival: now, to: &effects) }
        for change in update.changes { stateChanged(change, into: &effects) }
        for device in update.changedDevices { markDirty(device) }
        if markMergedBacklogs() || !update.changedDevices.isEmpty { effects.changes.devices += takeDirtyRecords(of: nil) }
        // Home Assistant shows the fence's name: a renamed fence renames the state of those inside.
        if let previousName, previousName != Self.displayName(update.fence) {
            integrationsFenceRenamed(definition.id, into: &effects)
        }
        effects.changes.fences.append(fenceRow(definition.id, origin: origin, definitionJSON: definitionJSON))
        if registry, registryLeadership.isLeader {
            effects.publish(
                layout.fence(definition.id), FenceRegistryPayload.encode(update.fence),
                qos: 1, retain: true)
            registryRound?.sentAlready.insert(ExactID(definition.id))
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

    /// `leavingTheFile`: the fences are removed because the file no longer lists them, and their
    /// record goes with the file's last step (``endFenceFile(_:clean:into:)``).
    mutating func removeFences(ids: [String], now: Double, leavingTheFile: Bool = false, into effects: inout Effects) {
        let held = ids.filter { engine.fence(id: $0) != nil }
        guard !held.isEmpty else { return }
        applyRemoval(engine.removeFences(ids: held, now: now), now: now, leavingTheFile: leavingTheFile, into: &effects)
    }

    /// A fence of the file is its own entry in the journal's record of the file (its row has origin
    /// `file`, `JournalSchema`'s version 13). Replaced at run time or removed otherwise than by the
    /// file, it no longer is: the record's entry is written out, so that the file's version of it,
    /// not what run time made of it, is what the next reload compares the file with. Written out
    /// where the row may not say it (a fence not held), it only repeats the record.
    private mutating func keepFileRecord(of id: String, into effects: inout Effects) {
        guard let record = lastFileFences[ExactID(id)] else { return }
        effects.changes.fileFences[ExactID(id)] = FenceDefinitionEncoding.encode(record)
    }

    /// Fences whose `expires_at` has come (docs/rules.md "Fleet rules"): removed as by a delete, the
    /// devices inside exiting with reason `fence_expired`.
    mutating func expireFences(now: Double, into effects: inout Effects) {
        guard let next = engine.nextExpiry, next <= now else { return }
        let removal = engine.expireFences(now: now)
        for id in removal.fences { effects.log(.notice, "fence expired", ["fence": "\(id)"]) }
        applyRemoval(removal, now: now, into: &effects)
    }

    /// What removing fences did, journaled and published: the exits and the removal go in one
    /// transaction, since a crash between them would lose the exits for good (a restart drops state
    /// at fences it no longer holds).
    private mutating func applyRemoval(
        _ removal: GeofenceEngine.FenceRemoval, now: Double, leavingTheFile: Bool = false, into effects: inout Effects
    ) {
        guard !removal.fences.isEmpty else { return }
        for transition in removal.transitions { addAlert(transition, arrival: now, to: &effects) }
        for change in removal.changes { stateChanged(change, into: &effects) }
        for id in removal.fences {
            if !leavingTheFile, fenceOrigins[ExactID(id)] == .file { keepFileRecord(of: id, into: &effects) }
            fenceOrigins[ExactID(id)] = nil
            counters.fenceChanges += 1
            // An empty retained message clears the registry entry.
            if registryLeadership.isLeader { effects.publish(layout.fence(id), [], qos: 1, retain: true) }
        }
        effects.changes.removedFences += removal.fences
        markMergedBacklogs()
        effects.changes.devices += takeDirtyRecords(of: nil)
    }

    /// A device's inside set changed other than by a sample: journaled, shown, published.
    mutating func stateChanged(_ change: StateChange, into effects: inout Effects) {
        markDirty(change.device, view: true)
        addState(device: change.device, at: change.at, lat: change.lat, lon: change.lon, integrations: !change.onlyShownAgain, to: &effects)
    }

    /// Its name, or its id when the name is empty or blank (Home Assistant ignores a blank state).
    static func displayName(_ fence: Fence) -> String {
        fence.name.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 } ?? fence.id
    }

    /// Where applying a fences file stands between the core's steps.
    struct FenceFileProgress {
        var started = false
        /// The next of the file's definitions to look at.
        var next = 0
        /// No problem so far: the file's digest may vouch for the record once applied.
        var clean = true
        /// The file's fences gone from it, found once its definitions are applied, and how many
        /// of them were removed so far.
        var gone: [String]?
        var removed = 0
        /// More changed fences than a step takes: their registry entries go after the file, as a
        /// round of the whole registry a slice at a time (``GeofenceService/republishRegistry``),
        /// instead of one with each change. A fresh start with 100,000 fences otherwise waited for
        /// 100,000 retained QoS 1 messages, which cost the broker on the same two cores about as
        /// much CPU as the rest of the start (docs/performance.md "Performance").
        var registryAfter = false
    }

    /// Brings the changes of `fences.file` into effect, as if set at run time: fences new or
    /// changed in the file since it was last applied are set, fences gone from it are removed.
    /// A fence the file did not change keeps whatever run time made of it (replaced, deleted).
    /// The effects come in chunks through `emit`, so that the writer journals and publishes one
    /// while the next is applied. All at once: the service takes it a step at a time instead
    /// (``applyFenceFile(_:now:progress:emit:)``).
    mutating func applyFenceFile(_ loaded: FenceFile, now: Double, emit: (Effects) -> Void) {
        var progress = FenceFileProgress()
        while !applyFenceFile(loaded, now: now, progress: &progress, emit: emit) {}
    }

    /// One step of applying a fences file: at most `fenceFileChunk` changed definitions, or as
    /// many removals of fences gone from it; the last step sets the file's digest. Returns
    /// whether it was the last. The service lets go of the core between steps, so that positions
    /// are not held behind a large file (100,000 changed fences under one hold: 0.5 s of CPU).
    ///
    /// Reloads run one at a time (at start, then each SIGHUP in turn), so the record the file
    /// was compared with is still the record: nothing prepared means unchanged. A fence set or
    /// deleted at run time between two steps stays as run time made it (`runtimeFenceChanges`).
    mutating func applyFenceFile(_ loaded: FenceFile, now: Double, progress: inout FenceFileProgress, emit: (Effects) -> Void)
        -> Bool
    {
        var effects = Effects()
        if !progress.started { beginFenceFile(loaded, progress: &progress, into: &effects) }
        let done = applyFileDefinitions(loaded, now: now, progress: &progress, into: &effects)
            && removeFencesGoneFromFile(loaded, now: now, progress: &progress, into: &effects)
        if done {
            endFenceFile(loaded, clean: progress.clean, into: &effects)
            if progress.registryAfter {
                if registryLeadership.isLeader { addFenceRegistryRound(to: &effects) } else { registryLeadership.leftToLeader() }
            }
        }
        emit(effects)
        return done
    }

    private mutating func beginFenceFile(_ loaded: FenceFile, progress: inout FenceFileProgress, into effects: inout Effects) {
        progress.started = true
        progress.clean = loaded.contents.problems.isEmpty
        runtimeFenceChanges = []
        // Until the last of the file's steps, no digest vouches for the record (`FencesFileDigest`).
        lastFileDigest = nil
        effects.changes.fencesFileDigest = .clear
        for problem in loaded.contents.problems {
            effects.log(.warning, "fence in file rejected", ["file": "\(loaded.contents.path)", "reason": "\(problem)"])
            fenceFileProblem(problem, path: loaded.contents.path, into: &effects)
        }
        // Room for the changed ones only: reserving on a full table rehashes all of it.
        let changed = loaded.prepared.count { $0 != nil }
        progress.registryAfter = changed > Self.fenceFileChunk
        engine.reserveFences(engine.fenceCount + changed)
        fenceOrigins.reserveCapacity(fenceOrigins.count + changed)
        lastFileFences.reserveCapacity(lastFileFences.count + changed)
    }

    /// Up to `fenceFileChunk` of the changed definitions; whether none is left. The record changes
    /// in place by what changed (the file's ids are unique); a feature that no longer reads, or is
    /// rejected, keeps its previous version there.
    private mutating func applyFileDefinitions(
        _ loaded: FenceFile, now: Double, progress: inout FenceFileProgress, into effects: inout Effects
    ) -> Bool {
        let definitions = loaded.contents.definitions
        effects.changes.fileFences.reserveCapacity(Self.fenceFileChunk)
        var taken = 0
        while progress.next < definitions.count, taken < Self.fenceFileChunk {
            let (definition, prepared) = (definitions[progress.next], loaded.prepared[progress.next])
            progress.next += 1
            guard let prepared else { continue }
            taken += 1
            let id = ExactID(definition.id)
            do {
                let prepared = try prepared.get()
                // Set or deleted at run time since the file's first step: as if after the file.
                let definitionJSON = runtimeFenceChanges?.contains(id) == true
                    ? prepared.definitionJSON
                    : try applyFence(
                        definition, prepared: prepared, origin: .file, registry: !progress.registryAfter, now: now, into: &effects
                    ).definitionJSON
                lastFileFences[id] = definition
                // The file's record changes by what changed in the file, in the fence's transaction:
                // a fence the file set is its own entry (`keepFileRecord`); one run time holds
                // is written out.
                if fenceOrigins[id] != .file { effects.changes.fileFences[id] = definitionJSON }
            } catch {
                progress.clean = false
                effects.log(.warning, "fence in file rejected", ["fence": "\(definition.id)", "reason": "\(error)"])
                fenceFileProblem("fence \(definition.id): \(error)", path: loaded.contents.path, into: &effects)
            }
        }
        return progress.next == definitions.count
    }

    /// Up to `fenceFileChunk` of the file's fences gone from it; whether none is left. One set at
    /// run time since the list was made is run time's, and stays.
    private mutating func removeFencesGoneFromFile(
        _ loaded: FenceFile, now: Double, progress: inout FenceFileProgress, into effects: inout Effects
    ) -> Bool {
        let gone = progress.gone ?? fenceOrigins.compactMap { id, origin in
            origin == .file && !loaded.contents.listedIDs.contains(id) ? id : nil
        }.sorted().map(\.string)
        progress.gone = gone
        let end = min(gone.count, progress.removed + Self.fenceFileChunk)
        let removing = gone[progress.removed..<end].filter { fenceOrigins[ExactID($0)] == .file }
        progress.removed = end
        removeFences(ids: removing, now: now, leavingTheFile: true, into: &effects)
        for id in removing { effects.log(.notice, "fence removed from file", ["fence": "\(id)"]) }
        return progress.removed == gone.count
    }

    /// The file's record without what it no longer lists, and its digest when it applied clean.
    private mutating func endFenceFile(_ loaded: FenceFile, clean: Bool, into effects: inout Effects) {
        let unlisted = lastFileFences.keys.filter { !loaded.contents.listedIDs.contains($0) }
        for id in unlisted {
            lastFileFences[id] = nil
            // Removed from the record below; not written out again in this step.
            effects.changes.fileFences[id] = nil
        }
        effects.changes.removedFileFences += unlisted.map(\.string)
        runtimeFenceChanges = nil
        // A file with problems is decoded again each time, so that they are reported again.
        lastFileDigest = clean ? loaded.digest : nil
        effects.changes.fencesFileDigest = lastFileDigest.map { .set($0) } ?? .clear
    }

    /// Changed fences (or removals) a step of a fences file takes: about 5 ms of the core's lock
    /// (100,000 changed fences took 0.5 s of CPU under perf).
    static let fenceFileChunk = 1_000

    /// Every fence retained, as the service holds it (at start, after a reconnect: a broker may have
    /// lost its retained store). Through the writer, so that a fence changed meanwhile is published
    /// after, never before. A named instance waits until it knows whether it leads.
    mutating func connected() -> Effects {
        registryLeadership.connected()
        var effects = Effects()
        if registryLeadership.takeDueRegistry() { addRegistry(to: &effects) }
        return effects
    }

    /// The whole registry: the tours in this step, the fences owed to the service's slices.
    mutating func addRegistry(to effects: inout Effects) {
        effects.messages += tourRegistry
        addFenceRegistryRound(to: &effects)
    }

    /// Every fence's entry, owed to the service's slices; a round going out is superseded.
    private mutating func addFenceRegistryRound(to effects: inout Effects) {
        effects.registryOwed = true
        registryRounds += 1
        registryRound = (registryRounds, [])
    }

    /// The ids of the registry's round now going out, and its number for `registryRoundEnded`.
    func registryRoundIDs() -> (ids: [String], round: Int) {
        (engine.fenceIDs, registryRound?.number ?? 0)
    }

    /// The round's last slice went (or it stopped): fences changed from now on are not noted.
    mutating func registryRoundEnded(_ number: Int) {
        if registryRound?.number == number { registryRound = nil }
    }

    /// The registry entries of `ids` as held now (a fence removed since has none; one replaced
    /// goes as it is now); their payloads are made on the writer's thread. `nil` once this
    /// instance no longer publishes the registry: the rest is owed again (`interrupted()`).
    mutating func registrySlice(_ ids: some Sequence<String>) -> Effects? {
        guard registryLeadership.isLeader else {
            registryLeadership.interrupted()
            return nil
        }
        var effects = Effects()
        let sentAlready = registryRound?.sentAlready ?? []
        effects.registry = ids.compactMap { id in
            sentAlready.isEmpty || !sentAlready.contains(ExactID(id)) ? engine.fence(id: id) : nil
        }
        return effects
    }
}
