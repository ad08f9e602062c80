import FleetFenceCodecs
import FleetFenceJournal
import FleetFenceTesting
import Foundation
import GeofenceEngine
import Testing

@testable import FleetSimulator

#if canImport(Glibc)
import Glibc
#endif

/// One seeded chaos run (docs/reliability.md): a mosquitto with the shipped persistence settings,
/// `fleetfence serve` as a process with a webhook to a real receiver, and the simulator replaying
/// the bundled routes and tours with noise at QoS 1; the faults of `ChaosSchedule` strike while it
/// runs, then `ChaosChecker` judges everything that came out.
enum ChaosCampaign {
    static let trucks = 25
    /// The bundled routes publish for about 15 s at this speed: a seed costs ~35 s when its faults
    /// fit inside that, more when a pause outlasts it.
    static let speedup = 60.0
    static let debounce = 20.0
    /// Wall seconds. A fault that keeps positions from the service for longer (a frozen broker)
    /// reads as the trucks' silence (docs/rules.md "The rules"); kept as short as ChaosTests' so that a
    /// seed's settle stays short.
    static let silentConfirm = 5.0
    static let webhook = "chaos"
    /// The journals' tmpfs when the disk is to fill: a run's journal stays under 10 MB.
    static let journalDiskMegabytes = 64
    /// Bytes a second the journal's disk fills at: past the WAL's room (about 31 MiB) within a
    /// second or two, to nothing in four.
    static let journalFillRate = 16.0 * 1_048_576
    /// `ack_wait` of Config/cluster/nats-node.conf.template (nats-server's default).
    static let natsAckWait = 30.0

    struct Outcome {
        var schedule: ChaosSchedule
        var verdict: ChaosChecker.Verdict
        var seconds: Double
        /// The faults as they happened: when each began and ended, wall seconds into the run.
        var executed: [String]
        /// The latest alert: arrival minus the wall-clock moment of its confirmation (the verify's
        /// measure; alerts confirmed by silence left out). What the faults cost when nothing is lost.
        var latest: Double?
        /// What to read when it failed: problems, the verify's summary, logs.
        var context: String

        /// One line per seed: what `Scripts/chaos` prints.
        var line: String {
            "seed=\(schedule.seed) faults=\(schedule) \(verdict.counts)"
                + (latest.map { String(format: " latest=%.1fs", $0) } ?? "") + " \(verdict.passed ? "PASS" : "FAIL")"
                + String(format: " (%.0f s)", seconds)
        }
    }

    /// Runs seed `seed` of `profile` from start to verdict; throws only when the run could not be
    /// made (a process that would not start), never for what the checker finds.
    static func run(seed: UInt64, profile: ChaosSchedule.Profile) async throws -> Outcome {
        let began = ContinuousClock.now
        return try await withTemporaryDirectory { directory in
            let run = try await ChaosCampaignRun(directory: directory, seed: seed, topology: profile.topology)
            let schedule = ChaosSchedule(seed: seed, profile: profile, publishingSeconds: run.publishingSeconds)
            // First, so that a run that hangs or crashes still says what it was doing.
            say("seed=\(seed) profile=\(profile.name) faults=\(schedule)")
            do {
                try await run.startServices(for: schedule)
                var outcome = try await run.execute(schedule)
                outcome.seconds = SimulationClock.seconds(ContinuousClock.now - began)
                await run.stop()
                return outcome
            } catch {
                await run.stop()
                throw error
            }
        }
    }

    /// A line on standard output at once (unbuffered), and in `FLEETFENCE_CHAOS_RESULTS` when set.
    static func say(_ line: String, result: Bool = false) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
        guard result, let path = ProcessInfo.processInfo.environment["FLEETFENCE_CHAOS_RESULTS"], !path.isEmpty else { return }
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        handle.seekToEndOfFile()
        handle.write(Data((line + "\n").utf8))
        try? handle.close()
    }
}

/// The processes of one chaos run. Used by one task only; the webhook receiver's outage runs
/// beside it with what it needs passed in.
final class ChaosCampaignRun {
    /// The run's broker: one mosquitto with the shipped persistence settings, or the three-node
    /// NATS cluster of `fleetfence cluster`.
    enum Brokers {
        case mosquitto(LocalMosquitto, ShippedBrokerSettings, persistence: String)
        case cluster(LocalNATSCluster)
    }

    let directory: String
    let seed: UInt64
    let topology: ChaosSchedule.Topology
    let brokers: Brokers
    /// What clients are given: mosquitto's URL, or every node's.
    let brokerURL: String
    /// Per instance (one on mosquitto, one per partition on the cluster).
    private(set) var instanceOptions: [ServiceProcess.Options] = []
    /// Per instance, every process started, the current one last.
    private(set) var instances: [[ServiceProcess]] = []
    /// The journals' file system when the disk is to fill.
    private var scratch: ScratchFileSystem?
    /// The webhook's receiver; another is started on the same port after an outage.
    private(set) var receivers: [WebhookReceiver] = []
    let simulation: Simulation
    let simulationLog = LogCapture()
    /// The checker's own subscriber: raw alert payloads, a persistent session like the verify's.
    private var alerts: MessageCollector?
    private var running: Task<VerifyReport?, any Error>?
    /// Wall clock of the first position: fault times count from it.
    private var start = ContinuousClock.now
    /// When the webhook's receiver was back after its outage.
    private var webhookBack: ContinuousClock.Instant?

    /// The brokers, the receiver and the simulation; the services start with `startServices`, once
    /// the schedule says whether the journals' disk is to fill.
    init(directory: String, seed: UInt64, topology: ChaosSchedule.Topology) async throws {
        let root = Fixtures.packageRoot.path
        self.directory = directory
        self.seed = seed
        self.topology = topology
        switch topology {
        case .mosquitto:
            let settings = try ShippedBrokerSettings(contentsOf: root + "/Config/mosquitto.conf")
            let persistence = directory + "/broker"
            try FileManager.default.createDirectory(atPath: persistence, withIntermediateDirectories: true)
            let broker = try LocalMosquitto.start(extraConfig: settings.extraConfig, persistenceDirectory: persistence)
            brokers = .mosquitto(broker, settings, persistence: persistence)
            brokerURL = broker.url
        case .cluster:
            let cluster = try LocalNATSCluster.start(
                partitions: ChaosSchedule.clusterPartitions, workDirectory: directory + "/nats")
            brokers = .cluster(cluster)
            brokerURL = cluster.brokerList
        }

        var simulationOptions = SimulationOptions(routes: Fixtures.bundledRoutes)
        simulationOptions.broker = brokerURL
        simulationOptions.speedup = ChaosCampaign.speedup
        simulationOptions.qos = 1
        simulationOptions.fleet.trucks = ChaosCampaign.trucks
        simulationOptions.fleet.noise = 10
        simulationOptions.fleet.seed = seed
        simulationOptions.tours = Fixtures.bundledTours
        simulationOptions.clientIDPrefix = "fleetsim-chaos-\(seed)-"
        var verify = try VerifyOptions(
            fencesFile: Fixtures.fencesFile.path, debounceSeconds: ChaosCampaign.debounce,
            silentConfirmSeconds: ChaosCampaign.silentConfirm)
        // Ended by `finish` once the faults are over and the service had its settle: a pause may
        // outlast the routes.
        verify.settle = 600
        simulationOptions.verify = verify
        do {
            simulation = try Simulation(options: simulationOptions, logger: simulationLog.logger(label: "fleetsim", level: .notice))
        } catch {
            Self.stop(brokers)
            throw error
        }
    }

    /// Starts the receiver and every instance: on a tmpfs of the run's own when the schedule fills
    /// the journals' disk.
    func startServices(for schedule: ChaosSchedule) async throws {
        let root = Fixtures.packageRoot.path
        var journals = directory
        if schedule.kinds.contains(.journalFull) {
            let scratch = try ScratchFileSystem(at: directory + "/journal", megabytes: ChaosCampaign.journalDiskMegabytes)
            self.scratch = scratch
            journals = scratch.path
        }
        let receiver = try await WebhookReceiver.start()
        receivers = [receiver]
        for instance in 0..<topology.instances {
            var options: ServiceProcess.Options
            switch brokers {
            case .mosquitto:
                options = ServiceProcess.Options([
                    .brokerURL: brokerURL, .fencesFile: root + "/Config/fences.geojson", .journalPath: journals + "/fleetfence.db",
                    .clientID: "fleetfence-chaos-\(seed)",
                ])
            case .cluster(let cluster):
                options = ClusterInstances.processOptions(
                    cluster, partition: instance, directory: journals, silentConfirm: ChaosCampaign.silentConfirm)
                options[.clientID] = "fleetfence-chaos-\(seed)-p\(instance)"
            }
            options.set(.debounce, ChaosCampaign.debounce)
            options.set(.silentConfirm, ChaosCampaign.silentConfirm)
            options.set(.statsInterval, 5)
            // Attempts time out well inside a pause of the receiver's host; the rest as shipped.
            options.configText = """
                webhooks:
                  - name: \(ChaosCampaign.webhook)
                    url: \(receiver.url)
                    timeout_s: 2

                """
            instanceOptions.append(options)
            instances.append([try await ServiceProcess.start(options, workingDirectory: directory)])
        }
    }

    func service(_ instance: Int) -> ServiceProcess { instances[instance][instances[instance].count - 1] }

    /// Wall seconds the routes take to publish.
    var publishingSeconds: Double {
        ((simulation.plan.endTime ?? simulation.options.fleet.startTime) - simulation.options.fleet.startTime) / ChaosCampaign.speedup
    }

    private var elapsed: Double { SimulationClock.seconds(ContinuousClock.now - start) }

    // MARK: The run

    func execute(_ schedule: ChaosSchedule) async throws -> ChaosCampaign.Outcome {
        alerts = try await MessageCollector.start(
            url: brokerURL, filters: ["fleetfence/alerts/#", "fleetfence/progress/+/+/+"], qos: 1,
            clientID: "chaos-checker-\(seed)", cleanSession: false)
        let simulation = simulation
        running = Task { try await simulation.run() }
        try await waitForFirstPosition()
        start = .now

        var executed: [String] = []
        // The receiver's outage beside the other faults: it hands back the receiver started after it.
        let outage = schedule.faults.first { $0.kind == .webhookDown }
        let webhookTask = outage.map { fault in
            Task { [first = receivers[0], start] () async throws -> (WebhookReceiver, String, ContinuousClock.Instant) in
                try await Task.sleep(until: start + .milliseconds(Int64(fault.at * 1000)))
                let down = SimulationClock.seconds(ContinuousClock.now - start)
                await first.stop()
                try await Task.sleep(for: .milliseconds(Int64(fault.duration * 1000)))
                let again = try await WebhookReceiver.start(port: first.port)
                let back = ContinuousClock.now
                return (again, String(format: "webhook down %.1f-%.1fs", down, SimulationClock.seconds(back - start)), back)
            }
        }
        var quietFrom = 0.0
        do {
            for fault in schedule.faults where fault.kind.isProcessFault {
                try await Task.sleep(until: start + .milliseconds(Int64(fault.at * 1000)))
                executed.append(try await strike(fault))
                quietFrom = elapsed
            }
            if let webhookTask {
                let (receiver, line, back) = try await webhookTask.value
                receivers.append(receiver)
                executed.append(line)
                webhookBack = back
            }
        } catch {
            webhookTask?.cancel()
            throw error
        }
        let report = try await finish(quietFrom: quietFrom)
        return try await judge(schedule: schedule, report: report, executed: executed)
    }

    /// One fault of the service or the broker, from its start to its end (the restart done).
    private func strike(_ fault: ChaosSchedule.Fault) async throws -> String {
        let wait = Duration.milliseconds(Int64(fault.duration * 1000))
        var began = elapsed
        var note = ""
        switch (fault.kind, brokers) {
        case (.serviceKill, _):
            _ = await service(fault.target).kill()
            try await Task.sleep(for: wait)
            try await restart(fault.target)
        case (.servicePause, _):
            service(fault.target).signal(SIGSTOP)
            try await Task.sleep(for: wait)
            service(fault.target).signal(SIGCONT)
        case (.brokerPause, .mosquitto(let broker, _, _)):
            broker.signal(SIGSTOP)
            try await Task.sleep(for: wait)
            broker.signal(SIGCONT)
        case (.brokerKill, .mosquitto(let broker, let settings, let persistence)):
            // Right after a save: what it forgets is what changed since (docs/operations.md "Crashes and restarts").
            try await waitForBrokerSave(settings: settings, persistence: persistence, after: Date().timeIntervalSince1970)
            began = elapsed
            broker.kill()
            try await Task.sleep(for: wait)
            try broker.restart()
        case (.nodeKill, .cluster(let cluster)):
            cluster.kill(fault.target)
            try await Task.sleep(for: wait)
            // Its start waits in a loop: on a thread of its own, not one of the few the tasks share.
            try await EndToEndSuites.ClusterFaultTests.offThread { try cluster.start(fault.target) }
        case (.nodePause, .cluster(let cluster)):
            Glibc.kill(cluster.processID(fault.target), SIGSTOP)
            try await Task.sleep(for: wait)
            Glibc.kill(cluster.processID(fault.target), SIGCONT)
        case (.journalFull, _):
            note = try await fillJournalDisk(for: wait)
        case (.webhookDown, _), (.brokerPause, .cluster), (.brokerKill, .cluster), (.nodeKill, .mosquitto), (.nodePause, .mosquitto):
            break
        }
        let name = fault.kind.rawValue + (fault.instanced ? " p\(fault.target)" : fault.kind == .nodeKill || fault.kind == .nodePause ? " n\(fault.target + 1)" : "")
        return String(format: "%@ %.1f-%.1fs", name, began, elapsed) + note
    }

    /// Starts instance `instance` again, as a supervisor would: it may refuse while the journal's
    /// disk is full, so it is tried every second for up to 60 s.
    private func restart(_ instance: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                instances[instance].append(try await ServiceProcess.start(instanceOptions[instance], workingDirectory: directory))
                return
            } catch {
                guard ContinuousClock.now < deadline else { throw error }
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Fills the journals' file system for `wait` as a log or another program would, at
    /// `journalFillRate`, down to nothing; starts every instance that stops meanwhile again each
    /// second (refused while there is no room); then frees it and brings every instance back.
    /// Says how many processes stopped and how many starts were refused.
    private func fillJournalDisk(for wait: Duration) async throws -> String {
        guard let scratch else { throw TestSupportError("the journal's disk was not set up to fill") }
        let until = ContinuousClock.now + wait
        let before = instances.map(\.count)
        var refused = 0
        var firstRefusal = ""
        var nextSupervision = ContinuousClock.now + .seconds(1)
        let step = UInt64(ChaosCampaign.journalFillRate / 10)
        while ContinuousClock.now < until {
            let free = scratch.freeBytes
            try scratch.fill(leaving: free > step ? free - step : 0)
            if ContinuousClock.now >= nextSupervision {
                nextSupervision = ContinuousClock.now + .seconds(1)
                for instance in instances.indices where !service(instance).isRunning {
                    do {
                        instances[instance].append(try await ServiceProcess.start(
                            instanceOptions[instance], workingDirectory: directory, readyTimeout: .seconds(5)))
                    } catch {
                        refused += 1
                        // The first refusal's reason, for the record: the journal's own words.
                        if refused == 1 {
                            let text = "\(error)"
                            firstRefusal = text.firstMatch(of: /cannot be written \((.*?)\);/).map { String($0.1) }
                                ?? text.split(separator: "\n").last.map(String.init) ?? ""
                        }
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        try scratch.free()
        for instance in instances.indices where !service(instance).isRunning { try await restart(instance) }
        let stopped = zip(instances, before).map { processes, count in processes.dropLast().count - (count - 1) }.reduce(0, +)
        let statuses = instances.joined().compactMap(\.exitStatus).map(String.init).joined(separator: ",")
        return " (\(stopped) stopped [exit \(statuses)], \(refused) starts refused while full\(firstRefusal.isEmpty ? "" : ": " + firstRefusal))"
    }

    /// Waits for publishing to end, then the settle after it and after the last fault (the
    /// verify's own: debounce in wall time, silence, 2 s), then ends the simulation's settle.
    private func finish(quietFrom: Double) async throws -> VerifyReport {
        guard let running else { throw TestSupportError("the simulation was not started") }
        let deadline = ContinuousClock.now + .seconds(300)
        while !simulation.hasFinishedPublishing {
            guard ContinuousClock.now < deadline else { throw TestSupportError("the simulation did not finish publishing in 300 s") }
            try await Task.sleep(for: .milliseconds(100))
        }
        var settle = ChaosCampaign.debounce / ChaosCampaign.speedup + ChaosCampaign.silentConfirm + 2
        // NATS' MQTT gateway sends a QoS 1 message that went unacknowledged (to a paused or
        // failed-over instance) again only after its ack_wait, 30 s as the template ships.
        if topology == .cluster { settle += ChaosCampaign.natsAckWait + 5 }
        let until = max(elapsed, quietFrom) + settle
        try await Task.sleep(until: start + .milliseconds(Int64(until * 1000)))
        simulation.stop()
        simulation.stop()
        return try #require(try await running.value)
    }

    /// Everything that came out, judged: the webhook's queue drained first, then the service
    /// stopped cleanly so that its journal holds its last state.
    private func judge(schedule: ChaosSchedule, report: VerifyReport, executed: [String]) async throws -> ChaosCampaign.Outcome {
        let journalPaths = instanceOptions.map { $0[.journalPath] ?? "" }
        let drained = try await waitForWebhookQueues(journals: journalPaths, timeout: .seconds(120))
        var executed = executed
        if let back = webhookBack, let last = receivers.last?.requests.map(\.at).max(), last > back {
            // What the outage cost the webhook: its back-off (docs/webhooks.md "Webhooks") after the receiver returned.
            executed.append(String(format: "webhook caught up %.1fs after it was back", SimulationClock.seconds(last - back)))
        }
        var statuses: [Int32] = []
        for instance in instances.indices { statuses.append(await service(instance).terminate()) }

        var checker = ChaosChecker()
        checker.expected = report.expected
        checker.missed = report.missed.map { "\(VerifyReport.label($0)) crossed \(RFC3339.format($0.at))" }
        checker.falseAlerts = report.falseAlerts.map { "\(VerifyReport.label($0)) seq \($0.seq.map(String.init) ?? "?")" }

        // Each instance's journal holds its partition's devices alone: together, the fleet's.
        var dead = (queued: 0, dead: 0)
        for path in journalPaths {
            let journal = try Journal(readingOnly: path, logger: testLogger("journal"))
            var query = EventQuery()
            query.limit = 1_000_000
            checker.journal += try journal.events(query).events.compactMap { ChaosChecker.Alert(payload: $0.alertJSON) }
            for row in try journal.loadDevices() {
                let record = try DeviceRecordEncoding.decode(row.state)
                checker.journalStates[row.device] = Set(record.regions.filter { $0.state == .inside }.map(\.fence))
            }
            let state = try journal.webhookQueueState(webhook: ChaosCampaign.webhook)
            dead = (dead.queued + state.queued, dead.dead + state.dead)
            try journal.close()
        }

        // Every journaled alert over MQTT: waited for, a QoS 1 redelivery may come late.
        let journaledKeys = Set(checker.journal.map(\.key))
        if let alerts {
            _ = await alerts.wait(timeout: .seconds(10)) { messages in
                journaledKeys.isSubset(of: Set(messages.compactMap { ChaosChecker.Alert(payload: $0.payload)?.key }))
            }
            for message in alerts.collected {
                if let alert = ChaosChecker.Alert(payload: message.payload) { checker.mqtt.append(alert) } else { checker.unreadable += 1 }
            }
        }
        for request in receivers.flatMap(\.requests) {
            if let alert = ChaosChecker.Alert(payload: request.body) { checker.webhook.append(alert) } else { checker.unreadable += 1 }
        }
        let retained = try await MessageCollector.start(url: brokerURL, filters: ["fleetfence/state/+"])
        let devices = checker.journalStates.count
        _ = await retained.wait(timeout: .seconds(5)) { $0.count >= devices }
        // A moment more: a retained message of a device the journal does not hold shows too.
        try await Task.sleep(for: .milliseconds(300))
        for message in retained.collected {
            guard let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any],
                let device = object["device"] as? String, let inside = object["inside"] as? [String]
            else {
                checker.unreadable += 1
                continue
            }
            checker.retainedStates[device] = Set(inside)
        }
        await retained.stop()

        var verdict = checker.check()
        for (instance, status) in statuses.enumerated() where status != 0 {
            verdict.problems.append("instance \(instance)'s clean stop ended with status \(status)")
        }
        if !drained || dead.dead > 0 {
            verdict.problems.append("webhook queue not drained: \(dead.queued) queued, \(dead.dead) dead")
        }
        ChaosCampaign.say("seed=\(seed) executed: \(executed.joined(separator: ", "))")
        return ChaosCampaign.Outcome(
            schedule: schedule, verdict: verdict, seconds: 0, executed: executed, latest: report.receiveDelays?.max,
            context: context(verdict: verdict, report: report, executed: executed))
    }

    // MARK: Waits

    /// Any topic under `fleet/`: the cluster maps positions to their partition's topic
    /// (docs/several-instances.md "Several instances").
    private func waitForFirstPosition() async throws {
        let watcher = try await MessageCollector.start(url: brokerURL, filters: ["fleet/#"])
        let first = await watcher.next(topicPrefix: "fleet/", timeout: .seconds(30))
        await watcher.stop()
        guard first != nil else { throw TestSupportError("no position within 30 s") }
    }

    /// Until the broker has saved its persistence file after `time` (its autosave).
    private func waitForBrokerSave(settings: ShippedBrokerSettings, persistence: String, after time: Double) async throws {
        let file = persistence + "/" + settings.persistenceFile
        let deadline = ContinuousClock.now + .seconds(settings.autosaveSeconds * 2 + 10)
        while ContinuousClock.now < deadline {
            let saved = (try? FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date)?.timeIntervalSince1970
            if let saved, saved > time { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestSupportError("the broker did not save \(file) within \(settings.autosaveSeconds * 2 + 10) s")
    }

    /// Until every instance's webhook outbox is empty (every row delivered or dead); `false` on timeout.
    private func waitForWebhookQueues(journals paths: [String], timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            var queued = 0
            for path in paths {
                let journal = try Journal(readingOnly: path, logger: testLogger("journal"))
                queued += try journal.webhookQueueState(webhook: ChaosCampaign.webhook).queued
                try journal.close()
            }
            if queued == 0 { return true }
            try await Task.sleep(for: .milliseconds(250))
        }
        return false
    }

    // MARK: End

    private func context(verdict: ChaosChecker.Verdict, report: VerifyReport, executed: [String]) -> String {
        var text = "executed: \(executed.joined(separator: ", "))\n"
        text += verdict.problems.joined(separator: "\n") + "\n--- verify\n\(report.summary)\n"
        text += "--- simulation log (tail)\n\(simulationLog.text.suffix(3000))\n"
        for (instance, processes) in instances.enumerated() {
            for (index, service) in processes.enumerated() {
                text += "--- instance \(instance) process \(index + 1) of \(processes.count) (tail)\n\(service.logTail(30))\n"
            }
        }
        switch brokers {
        case .mosquitto(let broker, _, _):
            // The service's own connections kept; the checker's and the trucks' left out.
            let lines = broker.log.split(separator: "\n").filter {
                $0.contains("fleetfence-chaos") || (!$0.contains("New c") && !$0.contains("disconnected") && !$0.contains("closed its"))
            }
            text += "--- broker log, connections left out (last 60 lines)\n" + lines.suffix(60).joined(separator: "\n")
        case .cluster(let cluster):
            // Warnings and errors first: a session's troubles show there, the tails are mostly routes.
            for node in cluster.nodes.indices {
                let lines = cluster.log(node).split(separator: "\n").filter { $0.contains("[ERR]") || $0.contains("[WRN]") }
                text += "--- node n\(node + 1) warnings and errors (last 40)\n" + lines.suffix(40).joined(separator: "\n") + "\n"
            }
            text += EndToEndSuites.ClusterFaultTests.nodeLogs(cluster)
        }
        return text
    }

    /// Stops everything it started; a paused process is let go on first, or its stop would wait.
    func stop() async {
        for instance in instances.indices { service(instance).signal(SIGCONT) }
        switch brokers {
        case .mosquitto(let broker, _, _): broker.signal(SIGCONT)
        case .cluster(let cluster):
            for node in cluster.nodes.indices where cluster.processID(node) != 0 { Glibc.kill(cluster.processID(node), SIGCONT) }
        }
        simulation.stop()
        simulation.stop()
        _ = try? await running?.value
        await alerts?.stop()
        for service in instances.joined() { await service.terminate() }
        for receiver in receivers { await receiver.stop() }
        Self.stop(brokers)
        try? scratch?.unmount()
    }

    private static func stop(_ brokers: Brokers) {
        switch brokers {
        case .mosquitto(let broker, _, _): broker.stop()
        case .cluster(let cluster): cluster.stop()
        }
    }
}
