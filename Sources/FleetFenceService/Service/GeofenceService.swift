import FleetFenceCodecs
import FleetFenceJournal
import Foundation
import GeofenceEngine
import Logging
import MQTT
import ServiceLifecycle
import Synchronization
import UnixSignals

/// `fleetfence serve`: positions in, alerts, state and the fence registry out, as docs/topics-and-payloads.md "Topics and payloads" says.
///
/// Threading: libmosquitto calls the message handler on its network thread; the handler decodes
/// and feeds the engine there, under ``CoreLoop``'s lock, with no hop to another thread. That is
/// the cheapest hand-off there is (one uncontended lock per message) and it keeps per-device order.
public final class GeofenceService: Service, Sendable {
    public let configuration: ServiceConfiguration
    let logger: Logger
    /// How often silent devices are checked and batched device state is written.
    private let tickInterval: Duration
    /// Stamps arrivals and paces the periodic work; a test may move it itself.
    let clock: any ServiceClock
    /// The broker's side: libmosquitto in `serve`, an in-memory broker in tests.
    private let makeBus: MessageBusFactory
    /// What readers see: committed steps at once, moving devices once a second.
    public let readModel = ReadModel()
    public let metrics = ServiceMetrics()
    let readiness = Readiness()
    private let reloadRequests = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    /// The running parts, for the HTTP interface's commands and readiness.
    let running = Mutex<Running?>(nil)
    /// The latest count of `memory(heapFree:)`, when it ended and whether it asked the allocator:
    /// held while a count runs, one count at a time.
    let memoryCounts = Mutex<(report: MemoryReport, at: ContinuousClock.Instant, heapAsked: Bool)?>(nil)
    /// Told once, by the journal's writer, when the journal cannot be written.
    private let journalFailures = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))

    struct Running: Sendable {
        let loop: CoreLoop
        let client: any MessageBus
        /// A connection of its own for the history, so that a reader never waits for the writer.
        let history: Journal
        let webhooks: WebhookDispatcher
    }

    /// Connected, and the fences file applied once (loaded or refused): alerts flow.
    public var isReady: Bool { readiness.phase == .ready }

    /// Returns `true` once the service is ready, `false` if it ended first (its log says why).
    public func untilReady() async -> Bool {
        await readiness.untilSettled() == .ready
    }

    /// Returns once every step the core has made so far is journaled and delivered to the
    /// outputs (a test's "the service is idle"); at once when it is not running.
    public func untilDelivered() async {
        guard let loop = running.withLock({ $0?.loop }) else { return }
        await loop.writer.waitUntilDelivered()
    }

    /// Reloads the fences file as SIGHUP does (docs/topics-and-payloads.md "Fences"); reloads asked for while one
    /// runs are done once after it.
    public func reloadFences() {
        logger.info("reloading fences", metadata: ["file": "\(configuration.fencesFile)"])
        reloadRequests.continuation.yield()
    }

    /// `bus`: what the service connects with (``MQTTClient`` unless a test gives its own);
    /// `clock`: the wall clock it stamps and paces with.
    public init(
        configuration: ServiceConfiguration, logger: Logger, tickInterval: Duration = .milliseconds(250),
        clock: any ServiceClock = SystemClock(), bus: MessageBusFactory? = nil
    ) {
        self.configuration = configuration
        self.logger = logger
        self.tickInterval = tickInterval
        self.clock = clock
        self.makeBus = bus ?? { options in try MQTTClient(options: options, logger: logger) }
    }

    public func run() async throws {
        // Made first and stopped on every way out: its HTTP client must be shut down.
        let webhooks = WebhookDispatcher(metrics: metrics, logger: logger, backoff: configuration.webhookBackoff)
        defer { readiness.moved(to: .ended) }
        do {
            try await serve(webhooks: webhooks)
        } catch {
            await webhooks.stop()
            throw error
        }
        await webhooks.stop()
    }

    private func serve(webhooks: WebhookDispatcher) async throws {
        // Trapped first: SIGHUP's default action ends the process, and start-up (journal, broker
        // connect) can take seconds. A hangup that arrives meanwhile reloads once serving.
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        for warning in configuration.warnings { logger.warning("configuration: \(warning)") }
        let layout = TopicLayout(prefix: configuration.prefix, instance: configuration.instanceName)
        // Said, since a new journal numbers every device's alerts from 1 again: a journal deleted
        // or moved away is seen in the log, not only by receivers that drop repeats by seq.
        let journalIsNew = !FileManager.default.fileExists(atPath: configuration.journalPath)
        let journal = try Journal(path: configuration.journalPath, logger: logger)
        if journalIsNew { logger.notice("journal created", metadata: ["path": "\(configuration.journalPath)"]) }
        // Read while the journal is restored: until its definitions are compared with the file's
        // record, the file does not depend on it. A file the same byte for byte as the one last
        // applied is not decoded at all (a restart with 100,000 fences: 0.4 s of CPU on the cores
        // the restore uses).
        let fencesPath = configuration.fencesFile
        let lastFileDigest = try journal.fencesFileDigest()
        let firstRead = Task.detached {
            Result { () throws(FenceFileError) in try FenceFile.read(path: fencesPath, lastDigest: lastFileDigest) }
        }
        // Rows queued before a restart or kill -9 are delivered from here on (docs/webhooks.md "Webhooks").
        try await webhooks.apply(configuration.webhooks, journal: journal)
        // What the broker may not have had when the last run ended (a kill -9 takes what
        // libmosquitto held): published again once connected (docs/reliability.md "What is promised").
        let mark = try journal.publishedMark()
        readiness.starting("restoring state from the journal")
        let restored = try StateRestorer.restore(
            from: journal, settings: configuration.geofence, now: clock.now, logger: logger, publishedMark: mark?.time)
        let pending = Republish(alerts: try mark.map { try journal.alerts(after: $0.alertID) } ?? [], states: restored.unpublishedStates)
        // A record the restore could not read whole is vouched for by no digest: the file is decoded.
        let fileDigest = restored.fileRecordComplete ? lastFileDigest : nil
        // Clocks only the log holds: the first fold writes them, or it would delete their rows.
        let unfoldedClocks = Set(restored.unfoldedClocks)
        // One connection listens, one publishes, so that acknowledgements never queue behind
        // positions (SplitBus).
        let options = try clientOptions(layout: layout)
        let client = SplitBus(listener: try makeBus(options), publisher: try makeBus(SplitBus.publisherOptions(options)))
        let outbox = MQTTOutbox(bus: client, alertID: journal.lastAlertID, journaled: mark)
        // Before the first commit: the mark must not pass what is published again.
        if let mark, !pending.isEmpty { outbox.beginRepublish(cap: mark) }
        // Taken by the first connection.
        let unpublished = Mutex<Republish?>(pending.isEmpty ? nil : pending)
        // Data flows one way: message -> core -> effects -> journal -> outputs, each told of the
        // committed steps in order: the topics, the read side (HTTP), the webhooks.
        let outputs: [any Output] = [
            MQTTOutput(bus: client, layout: layout, metrics: metrics, clock: clock, outbox: outbox, logger: logger) { journal.lastAlertID },
            readModel, WebhookOutput(webhooks),
        ]
        let metrics = self.metrics
        let failures = journalFailures.continuation
        let writer = JournalWriter<Effects>(
            journal: journal, logger: logger, observeCommit: { metrics.journalCommitted(in: $0) },
            failed: { failures.yield($0) }, publishedMark: { outbox.mark() }
        ) { steps in
            for output in outputs { output.committed(steps) }
        }
        let loop = CoreLoop(
            Self.core(
                restoring: consume restored, fileDigest: fileDigest, ownTracks: try journal.loadOwnTracksTopics(), layout: layout,
                configuration: configuration, logsEachFileFence: logger.logLevel <= .debug),
            writer: writer, logger: logger)
        readModel.coreStarted()
        client.onAcknowledged { writer.acknowledgementsMoved() }

        let clock = self.clock
        client.onMessage { message in
            let arrival = clock.now
            message.withTopicBytes { topic in
                loop.step { $0.handle(topic: topic, payload: message.payload, arrival: arrival) }
            }
        }
        let statusTopic = layout.status
        /// Set under its lock before `offline` is published; `online` is published under it, so
        /// never after `offline` (which a clean disconnect would leave retained for good).
        let stopping = Mutex(false)
        let connections = Atomic(0)
        /// The tasks publishing states and the fence registry again, and Home Assistant's discovery.
        let republishing = RepublishSlot()
        let registryRepublish = RepublishSlot()
        let discovery = RepublishSlot()
        // Home Assistant's configs of the devices held, when the journal does not say they have them
        // under the prefix in force (docs/integrations.md "Home Assistant"): after the first connect.
        let discovered = try journal.homeAssistantDiscovery()
        let discoveryPrefix = configuration.integrations.homeAssistant ? configuration.integrations.homeAssistantPrefix : nil
        if discoveryPrefix == nil, let discovered, discovered.complete {
            // Off: devices seen from now on get no config, and the configs stay where they are.
            try journal.setHomeAssistantDiscovery(HomeAssistantDiscoveryMark(prefix: discovered.prefix, complete: false))
        }
        let discoveryOwed = Atomic(
            discoveryPrefix.map { discovered != HomeAssistantDiscoveryMark(prefix: $0, complete: true) } ?? false)
        let replacedPrefix = discovered.flatMap { $0.prefix == discoveryPrefix ? nil : $0.prefix }
        // Weak: the loop holds this closure.
        loop.onRegistryOwed { [weak loop] in
            guard let loop else { return }
            registryRepublish.start { GeofenceService.republishRegistry(loop: loop, bus: client) }
        }
        // `online` once the subscriptions hold, not at the CONNACK: a broker that lost the session
        // drops a `set` published in between, and whoever waited for `online` to send it would
        // lose it. Said again after every reconnect, since the last will may have said `offline`.
        client.onSubscribed {
            stopping.withLock { stopping in
                guard !stopping else { return }
                _ = client.publish(topic: statusTopic, payload: Array("online".utf8), qos: 1, retain: true)
            }
        }
        client.onConnectionChange { [logger] connected in
            metrics.connectionChanged(connected)
            guard connected else {
                if !stopping.withLock({ $0 }) { logger.warning("broker connection lost; reconnecting") }
                return
            }
            // After every (re)connect: a broker that lost its retained store must get the registry back.
            let republish = unpublished.withLock { pending in
                defer { pending = nil }
                return pending
            }
            loop.step { core in
                var effects = core.connected()
                // In the first connection's first step: before any alert of a position it reads.
                if let republish { core.republish(republish.alerts, into: &effects) }
                return effects
            }
            // The states to publish again: `nil` for none, an empty `devices` with `every` for all.
            var states: (devices: [String], every: Bool)?
            if connections.add(1, ordering: .relaxed).newValue > 1 {
                // A broker that restarted may have lost retained messages: all of them without
                // persistence, those since its last save after a crash, acknowledged or not.
                // The registry went again in `connected()`; every device's state goes too, and
                // until they are acknowledged a kill leaves the next start to send them all.
                outbox.beginRepublish(cap: PublishedMark(alertID: .max, time: 0))
                logger.info("publishing every device's state again")
                states = ([], true)
            } else if let republish {
                logger.info(
                    "publishing again what the broker may not have had",
                    metadata: ["alerts": "\(republish.alerts.count)", "states": "\(republish.states.count)"])
                states = (republish.states, false)
            }
            if let states {
                republishing.start {
                    GeofenceService.republishStates(states.every ? nil : states.devices, loop: loop, bus: client, outbox: outbox)
                }
            }
            if let discoveryPrefix, discoveryOwed.exchange(false, ordering: .relaxed) {
                discovery.start {
                    GeofenceService.discoverDevices(
                        prefix: discoveryPrefix, replacing: replacedPrefix, journal: journal, loop: loop, bus: client, logger: logger)
                }
            }
        }
        let instanceFilters = configuration.instanceName == nil ? [] : [layout.instanceStatusFilter]
        client.subscribe(
            configuration.positionTopics + configuration.inputs.topics + [layout.fenceSetFilter, layout.tourSetFilter, layout.deviceForgetFilter]
                + instanceFilters,
            qos: 1)
        guard try await connectOnceReachable(client) else {
            // Asked to stop before the broker was reached: nothing was received or published.
            logger.info("stopping")
            readiness.moved(to: .stopping)
            discovery.stop()
            await writer.stop(timeout: .seconds(1))
            try journal.close()
            logger.info("stopped")
            return
        }
        logger.info(
            "fleetfence serving",
            metadata: [
                "broker": "\(configuration.brokerURLs.joined(separator: ","))", "instance": "\(configuration.instanceName ?? "")", "positions": "\(configuration.positionTopics)", "traccar": "\(configuration.inputs.traccarTopics)",
                "mappings": "\(configuration.inputs.mappings.map(\.topic))",
                "prefix": "\(configuration.prefix)", "journal": "\(configuration.journalPath)",
            ])
        running.withLock {
            $0 = Running(
                loop: loop, client: client,
                history: (try? Journal(readingOnly: configuration.journalPath, logger: logger)) ?? journal, webhooks: webhooks)
        }
        // Read before the restore found the record incomplete, the file may have been skipped on
        // the digest: then it is read again, and decoded.
        var first: Result<FenceFile.Read, FenceFileError>? = await firstRead.value
        if fileDigest == nil, case let .success(read)? = first, read.contents == nil { first = nil }
        await reloadFences(loop, read: first)
        readModel.replace(fences: loop.withCore { $0.engine.fences })
        readModel.replace(tours: loop.withCore { $0.engine.tours })
        refreshReadModel(loop)
        readiness.moved(to: .ready)

        let stopCause: StopCause? = (try? await cancelWhenGracefulShutdown {
            try await withThrowingTaskGroup(of: StopCause?.self) { group in
                group.addTask {
                    for await failure in self.journalFailures.stream { return .journalFailed(failure) }
                    return nil
                }
                group.addTask {
                    for await _ in hangups {
                        self.logger.info("SIGHUP: reloading fences", metadata: ["file": "\(self.configuration.fencesFile)"])
                        self.reloadRequests.continuation.yield()
                    }
                    return nil
                }
                // One reload at a time, whoever asked: two at once would each compare the file with
                // the same record, and the later could journal its digest over the other's changes.
                group.addTask {
                    for await _ in self.reloadRequests.stream {
                        await self.reloadFences(loop)
                        await self.reloadWebhooks(loop, webhooks, journal: journal)
                    }
                    return nil
                }
                group.addTask { .journalDiskLow(try await self.periodic(loop, journal: journal, unfolded: unfoldedClocks)) }
                let cause = try await group.next() ?? nil
                group.cancelAll()
                return cause
            }
        }) ?? nil
        let journalFailure: String?
        if case .journalFailed(let failure) = stopCause { journalFailure = failure } else { journalFailure = nil }
        readiness.moved(to: .stopping)
        republishing.stop()
        registryRepublish.stop()
        discovery.stop()
        readModel.feed.finishAll()
        if let journalFailure {
            // Nothing more can be journaled, so nothing more is published but `offline`; the broker
            // keeps the positions for the restart a supervisor makes (docs/operations.md "Limits and failures").
            logger.critical("stopping: the journal cannot be written", metadata: ["error": "\(journalFailure)"])
            stopping.withLock { $0 = true }
            _ = client.publish(topic: statusTopic, payload: Array("offline".utf8), qos: 1, retain: true)
            _ = await client.waitForPublishes(timeout: .seconds(5))
            await client.disconnect()
            await writer.stop(timeout: .seconds(1))
            await webhooks.stop()
            try? journal.close()
            throw JournalUnwritable(reason: journalFailure)
        }

        // Clean stop: state written, offline said, everything acknowledged, then goodbye.
        if case .journalDiskLow(let reason) = stopCause {
            // Stopped while every write still fits: nothing taken from the broker is lost, and
            // the supervisor's restarts are refused until there is room
            // (docs/operations.md "Limits and failures").
            logger.critical("stopping: the journal's disk is nearly full", metadata: ["reason": "\(reason)"])
        } else {
            logger.info("stopping")
        }
        stopping.withLock { $0 = true }
        let now = clock.now
        loop.step { $0.mergeBacklogs(now: now) }
        flushEverything(loop)
        // From here on the writer writes on the caller's thread: messages that still arrive
        // until the disconnect are journaled and alerted at once.
        await writer.stop()
        _ = client.publish(topic: statusTopic, payload: Array("offline".utf8), qos: 1, retain: true)
        _ = await client.waitForPublishes(timeout: .seconds(5))
        await client.disconnect()
        // Nothing is published any more: the last mark, so that the next start publishes again
        // only what the broker did not acknowledge.
        if let mark = outbox.mark(force: true).mark { try? journal.write(alerts: [], devices: [], mark: mark) }
        // What those last messages changed without an alert, and backlogs they brought (their
        // alerts journaled: the next start publishes them).
        loop.step { $0.mergeBacklogs(now: now) }
        flushEverything(loop)
        running.withLock { running in
            try? running?.history.close()
            running = nil
        }
        await webhooks.stop()
        try journal.close()
        logger.info("stopped")
        // Non-zero, for the supervisor, whose restarts the journal refuses until there is room.
        if case .journalDiskLow(let reason) = stopCause { throw JournalUnwritable(reason: reason) }
    }

    /// Connects, waiting for a broker that is not there yet (a host starting, a broker restarting),
    /// as the service waits for one lost later: tried again after 1 s, then at most every 30 s,
    /// `/readyz` saying it is starting. A broker that refuses the service (credentials, TLS) is a
    /// setting to fix: thrown, and the start fails. False when asked to stop meanwhile.
    private func connectOnceReachable(_ client: SplitBus) async throws -> Bool {
        var delay = 1.0
        var waiting = false
        readiness.starting("connecting to the MQTT broker")
        while true {
            do {
                try await client.connect(timeout: .seconds(10))
                if waiting { logger.notice("broker reached") }
                readiness.starting("connected to the MQTT broker")
                return true
            } catch let error as MQTTError {
                switch error {
                case .unreachable, .timedOut: break
                default: throw error
                }
                if !waiting { logger.warning("broker not reachable; trying again until it is", metadata: ["error": "\(error)"]) }
                waiting = true
                readiness.starting("the MQTT broker is not reachable (\(error)); trying again")
            }
            let pause = Duration.seconds(delay)
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: pause) }
            } catch {
                return false
            }
            delay = min(delay * 2, 30)
        }
    }

    /// Why `serve` stopped before it was asked to.
    private enum StopCause: Sendable {
        /// A write failed: nothing more can be journaled, so nothing more is published.
        case journalFailed(String)
        /// The journal's file system is nearly full: a clean stop, while writes still fit.
        case journalDiskLow(String)
    }

    /// The core over what the journal restored, with the configuration's integrations and webhooks.
    /// Consumed, not copied: a table shared with a copy left behind is copied whole at its first
    /// change, under the core's lock (a restart with 100,000 fences: 56 ms of reserving room for
    /// a file that changed nothing).
    private static func core(
        restoring restored: consuming StateRestorer.Restored, fileDigest: String?, ownTracks: [OwnTracksTopic],
        layout: TopicLayout, configuration: ServiceConfiguration, logsEachFileFence: Bool
    ) -> GeofenceCore {
        var core = GeofenceCore(
            engine: restored.engine, layout: layout, positionFilters: configuration.positionTopics, inputs: configuration.inputs)
        core.logsEachFileFence = logsEachFileFence
        core.fenceOrigins = restored.origins
        core.lastFileFences = restored.fileFences
        core.lastFileDigest = fileDigest
        for device in restored.devices {
            if let handle = core.engine.handle(ifHeld: device) { core.changedViews.mark(handle) }
        }
        if configuration.integrations.homeAssistant {
            core.integrations.homeAssistantPrefix = configuration.integrations.homeAssistantPrefix
        }
        core.integrations.ownTracksTransitions = configuration.integrations.ownTracksTransitions
        // Devices forgotten by a kill before their row went are not held: their topics neither.
        if configuration.integrations.ownTracksTransitions {
            for entry in ownTracks where core.engine.knows(device: entry.device) {
                core.integrations.ownTracksTopics[ExactID(entry.device)] = entry.topic
            }
        }
        core.webhooks = WebhookRoutes(configuration.webhooks)
        return core
    }

    /// The file's changes built, against the record of the file as last applied: a copy of that
    /// record that outlived this call would make applying the file copy the core's whole record.
    private static func prepare(_ contents: FenceFile.Contents, digest: String, in loop: CoreLoop) -> FenceFile {
        let (lastApplied, settings) = loop.withCore { ($0.lastFileFences, $0.engine.settings) }
        return FenceFile.prepare(contents, digest: digest, settings: settings, applied: lastApplied)
    }

    private func clientOptions(layout: TopicLayout) throws -> MQTTOptions {
        let brokers = try configuration.brokers()
        var options = MQTTOptions(
            url: brokers[0], clientID: configuration.clientID, cleanSession: false, username: configuration.username,
            password: try configuration.password(), caFile: configuration.caFile,
            will: MQTTWill(topic: layout.status, payload: Array("offline".utf8), qos: 1, retain: true))
        options.failoverURLs = Array(brokers.dropFirst())
        // Read again at every reconnect, so a rotated password file needs no restart; an unreadable
        // one keeps the password read last (docs/configuration.md "Configuration").
        if configuration.passwordFile != nil {
            let configuration = configuration
            let logger = logger
            let last = Mutex(options.password)
            options.passwordSource = {
                do {
                    let password = try configuration.password()
                    last.withLock { $0 = password }
                    return password
                } catch {
                    logger.warning("password file unreadable; using the password read before", metadata: ["error": "\(error)"])
                    return last.withLock { $0 }
                }
            }
        }
        return options
    }

    /// Loads `fences.file` (or takes it as `read` already) and brings it into effect. A missing or
    /// broken file changes nothing, and says why on the fences' errors topic. "fences loaded" is
    /// said once the changes are journaled and their registry entries handed to the client (a
    /// large file's go after, in a round of the whole registry: `FenceFileProgress`); a file
    /// unchanged since it was last applied (`FencesFileDigest`) changes nothing, and says so
    /// (`unchanged`).
    private func reloadFences(_ loop: CoreLoop, read alreadyRead: Result<FenceFile.Read, FenceFileError>? = nil) async {
        let path = configuration.fencesFile
        do throws(FenceFileError) {
            let timer = ContinuousClock()
            let start = timer.now
            let read = try (alreadyRead ?? Result { () throws(FenceFileError) in
                try FenceFile.read(path: path, lastDigest: loop.withCore { $0.lastFileDigest })
            }).get()
            var prepared = timer.now
            if let contents = read.contents {
                let file = Self.prepare(contents, digest: read.digest, in: loop)
                prepared = timer.now
                // A step at a time, letting go of the core between them: positions wait for one
                // step (`GeofenceCore.fenceFileChunk`), not for the whole file.
                var progress = GeofenceCore.FenceFileProgress()
                var done = false
                while !done {
                    let now = clock.now
                    loop.step { core in
                        done = core.applyFenceFile(file, now: now, progress: &progress) { loop.carryOut($0) }
                        return Effects()
                    }
                }
            }
            let applied = timer.now
            await loop.writer.waitUntilDelivered()
            let count = loop.withCore { $0.engine.fenceCount }
            logger.info(
                "fences loaded",
                metadata: [
                    "file": "\(path)", "fences": "\(count)", "unchanged": "\(read.contents == nil)",
                    "read_s": "\(Self.seconds(prepared - start))", "apply_s": "\(Self.seconds(applied - prepared))",
                    "journal_s": "\(Self.seconds(timer.now - applied))",
                ])
        } catch {
            loop.step { $0.rejectFenceFile(error) }
        }
    }

    /// Reads the config file's `webhooks` again (docs/webhooks.md "Webhooks"): a bad list is refused with a
    /// log line and the webhooks in force stay.
    private func reloadWebhooks(_ loop: CoreLoop, _ webhooks: WebhookDispatcher, journal: Journal) async {
        guard let path = configuration.configFile else { return }
        do {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ConfigurationError(key: nil, source: "config file \(path)", message: "cannot read \(path)")
            }
            let list = try WebhookSettings.read(fileText: String(decoding: data, as: UTF8.self), path: path)
            try await webhooks.apply(list, journal: journal)
            // The workers first: a row the core queues from here on has its worker.
            loop.withCore { $0.webhooks = WebhookRoutes(list) }
            logger.info("webhooks reloaded", metadata: ["webhooks": "\(list.map(\.name).joined(separator: ","))"])
        } catch {
            logger.error("webhooks not reloaded; those in force stay", metadata: ["error": "\(error)"])
        }
    }

    private static func seconds(_ duration: Duration) -> String {
        let (whole, fraction) = duration.components
        return String(format: "%.3f", Double(whole) + Double(fraction) * 1e-18)
    }

    /// How often latest-sample times are journaled: what a kill -9 can forget of them. Each is a
    /// device's anchor, the last position a crossing is interpolated from after a restart; 5 s,
    /// at a simulation's 20x, put exits 100 simulated seconds early (docs/operations.md "Journal").
    private static let clockFlushInterval = 1.0
    /// Devices whose clocks, records or views are copied in one hold of the core's lock: in the
    /// soak (a probe logging every hold over 15 ms) none of these slices was among them.
    private static let slice = 500
    private static let homeAssistantInterval = 5.0
    /// How often the read model takes the devices that changed: each view costs about a
    /// microsecond to build, so 10,000 moving devices cost 1% of a core at once a second.
    private static let viewRefreshInterval = 1.0

    /// The clocks of the devices that reported since the last flush, into the journal's clock
    /// log (`ClockLog`). Returns their ids, which the caller adds to the fold's set off the lock:
    /// added under it, they held messages up for 30-50 ms every second in the soak (45,000
    /// devices a second; a probe of the lock).
    @discardableResult
    private func flushClocks(_ loop: CoreLoop) -> [ExactID] {
        let due = loop.withCore { $0.takeClockOnlyDevices() }
        var logged: [ExactID] = []
        logged.reserveCapacity(due.count)
        Self.forEachSlice(of: due) { slice in logged += loop.stepReturning { $0.clockRecords(of: slice) } }
        return logged
    }

    /// Seconds a tick may come late before its gap counts as time the service did not run, not
    /// as the devices' silence (docs/rules.md "The rules").
    static let stallAllowance = 1.0

    /// How often devices silent for `geofence.forget_after_s` are looked for, and how many are
    /// forgotten per hold of the core's lock: a slice of 1,000 (each device's line logged under
    /// the lock) held it 18-34 ms in the soak, positions waiting behind it.
    private static let forgetSweepInterval = 60.0
    private static let forgetSlice = 250

    private func forgetSilentDevices(_ loop: CoreLoop, now: Double) {
        var forgotten = 0
        repeat {
            let before = loop.withCore { $0.counters.forgotten }
            loop.step { $0.forgetSilent(now: now, limit: Self.forgetSlice) }
            forgotten = loop.withCore { $0.counters.forgotten } - before
        } while forgotten == Self.forgetSlice
    }

    /// The changed devices' records for the writer to hold, a slice at a time (as the clocks).
    private func holdDirtyRecords(_ loop: CoreLoop) {
        Self.forEachSlice(of: loop.withCore { $0.takeDirtyDevices() }) { slice in loop.step { $0.heldRecords(of: slice) } }
    }

    /// `body` for each `slice` of `due` in turn: each its own hold of the core's lock.
    private static func forEachSlice(of due: [DeviceHandle], _ body: (ArraySlice<DeviceHandle>) -> Void) {
        for start in stride(from: 0, to: due.count, by: slice) { body(due[start..<min(due.count, start + slice)]) }
    }

    /// Every dirty device's state and every latest-sample time (at a clean stop).
    private func flushEverything(_ loop: CoreLoop) {
        loop.step { $0.dirtyRecords() }
        flushClocks(loop)
    }

    /// Device views a slice at a time, the lock let go between slices (as for latest-sample times).
    private func refreshReadModel(_ loop: CoreLoop) {
        while true {
            let (views, forgets, more) = loop.withCore { core in
                (core.takeChangedViews(limit: Self.slice), core.counters.forgotten, core.viewsAreDue)
            }
            readModel.update(devices: views, takenAfter: forgets)
            if !more { break }
        }
        let counters = loop.withCore { $0.readCounters }
        readModel.update(counters: counters)
        metrics.update(counters, streams: readModel.feed.subscriberCount)
        let outstanding = running.withLock { $0?.client.publishTickets.outstanding } ?? 0
        metrics.backlog(unacknowledged: outstanding, journalSteps: loop.writer.queuedSteps, journalDevices: loop.writer.heldDeviceCount)
    }

    /// Silence checks and dirty device state every tick, latest-sample times
    /// every second, a stats line every interval, the journal's free space every second.
    /// Returns only when the journal's disk is nearly full, with the reason.
    /// `unfolded`: the devices whose clocks only the journal's clock log held at start.
    private func periodic(_ loop: CoreLoop, journal: Journal, unfolded restored: Set<ExactID>) async throws -> String {
        // On the service's clock, in seconds: a test that moves the clock moves these too.
        let clock = self.clock
        let start = clock.now
        var nextStats = start + configuration.statsIntervalSeconds
        var nextClockFlush = start + Self.clockFlushInterval
        // The devices logged since the last fold: the fold writes each one's clock once, however
        // many seconds logged it. This task's own, so that the lock never hashes them. Restored
        // from the log alone, clocks are folded at once: a service restarted sooner than a fold
        // each time would never delete the log, and read more of it at every start.
        var unfolded = restored
        var nextClockFold = unfolded.isEmpty ? start + ClockFold.interval : start
        var loggedSinceFold = 0
        var fold: ClockFold?
        var nextHomeAssistant = start + Self.homeAssistantInterval
        var nextViewRefresh = start
        var lastPositions = 0
        var lastStatsTime = start
        // A minute, or sooner when devices are forgotten sooner than that.
        let forgetSweepInterval = min(Self.forgetSweepInterval, max(0.25, configuration.geofence.forgetAfterSeconds / 4))
        var nextForgetSweep = start + forgetSweepInterval
        var nextSubscriptionRetry = start + 5
        var nextDiskCheck = start + 1
        var lastTick = start
        let tickSeconds = Double(tickInterval.components.seconds) + Double(tickInterval.components.attoseconds) * 1e-18
        let positionFilters = Set(configuration.positionTopics + configuration.inputs.topics)
        while true {
            try await clock.sleep(for: tickInterval)
            let now = clock.now
            if now < lastTick {
                // The wall clock was set back (NTP stepping it): what was due keeps its pace
                // rather than waiting for the old time to come round again.
                (nextStats, nextClockFlush, nextHomeAssistant, nextViewRefresh, nextClockFold) = (now, now, now, now, now)
                (nextForgetSweep, nextSubscriptionRetry, lastStatsTime, nextDiskCheck) = (now, now, now, now)
            }
            // Connected with a position filter refused, it does not hear those devices either.
            let hearing = running.withLock { running in
                running.map { $0.client.isConnected && !$0.client.refusedSubscriptions.contains(where: positionFilters.contains) }
            } ?? true
            // A tick long overdue means the service did not run (SIGSTOP, a suspended host or
            // VM): it read nothing meanwhile, and what the devices sent waits in the broker. Nor is
            // that their silence; a tick late by less is the scheduler's and counts as usual.
            let overdue = now - lastTick - tickSeconds
            let unheard = hearing ? (overdue > Self.stallAllowance ? overdue : 0) : now - lastTick
            loop.step { $0.tick(now: now, unheard: unheard) }
            holdDirtyRecords(loop)
            lastTick = now
            if now >= nextViewRefresh {
                nextViewRefresh = now + Self.viewRefreshInterval
                refreshReadModel(loop)
                // Retention, a chunk a second on the writer's thread, never on the position path.
                let cutoff = now - configuration.retentionDays * 86_400
                loop.writer.submit(Effects(changes: JournalChanges(pruneAlertsBefore: cutoff)))
            }
            if now >= nextClockFlush {
                nextClockFlush = now + Self.clockFlushInterval
                let logged = flushClocks(loop)
                loggedSinceFold += logged.count
                unfolded.formUnion(logged)
                if fold == nil, now >= nextClockFold || loggedSinceFold >= ClockFold.entries {
                    nextClockFold = now + ClockFold.interval
                    loggedSinceFold = 0
                    let devices = Array(unfolded)
                    unfolded = []
                    if !devices.isEmpty { fold = ClockFold(devices, slice: Self.slice) }
                }
                for part in fold?.nextSecond() ?? [] {
                    loop.step { $0.foldedClocks(of: part.devices, first: part.first, last: part.last) }
                }
                if fold?.isHandedOver == true { fold = nil }
            }
            if now >= nextHomeAssistant {
                // A device's position in Home Assistant is at most this old, and never a message
                // per sample (its fences changing are sent at once).
                nextHomeAssistant = now + Self.homeAssistantInterval
                loop.step { $0.homeAssistantPositions() }
            }
            if now >= nextSubscriptionRetry {
                // A refused subscription leaves the service deaf to those topics: asked again
                // until the broker grants it (an ACL fixed, a cluster node back).
                nextSubscriptionRetry = now + 5
                running.withLock { $0?.client }?.retryRefusedSubscriptions()
            }
            if now >= nextDiskCheck {
                // A disk that fills as logs or other programs fill it is seen here, a second at a
                // time, while the WAL can still grow to its forced checkpoint: the clean stop
                // then journals everything received (a failed write loses what was received since
                // the last commit).
                nextDiskCheck = now + 1
                if let shortfall = journal.diskShortfall() { return shortfall }
            }
            if now >= nextForgetSweep {
                nextForgetSweep = now + forgetSweepInterval
                forgetSilentDevices(loop, now: now)
            }
            if now >= nextStats {
                nextStats = now + configuration.statsIntervalSeconds
                let seconds = now - lastStatsTime
                lastStatsTime = now
                let line = loop.withCore { core -> String in
                    let counters = core.counters
                    let rate = Double(counters.positions - lastPositions) / max(seconds, 1e-9)
                    lastPositions = counters.positions
                    let suppressed = counters.unloggedRejections
                    core.counters.loggedRejectionsThisInterval = 0
                    core.counters.unloggedRejections = 0
                    return String(
                        format: "stats positions/s=%.0f positions=%d devices=%d fences=%d alerts=%d errors=%d stale=%d late=%d too_late=%d inaccurate=%d ignored=%d unlogged_errors=%d",
                        rate, counters.positions, core.engine.deviceCount, core.engine.fenceCount, counters.alerts,
                        counters.rejected + counters.fenceErrors, core.engine.counters.stale, core.engine.counters.late,
                        core.engine.counters.tooLate,
                        core.engine.counters.inaccurate, counters.ignored, suppressed)
                }
                logger.info("\(line)")
            }
        }
    }
}
