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
            let run = try await ChaosCampaignRun(directory: directory, seed: seed)
            let schedule = ChaosSchedule(seed: seed, profile: profile, publishingSeconds: run.publishingSeconds)
            // First, so that a run that hangs or crashes still says what it was doing.
            say("seed=\(seed) profile=\(profile.name) faults=\(schedule)")
            do {
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
    let directory: String
    let seed: UInt64
    let broker: LocalMosquitto
    let brokerSettings: ShippedBrokerSettings
    let persistence: String
    let serviceOptions: ServiceProcess.Options
    /// Every service process started, the current one last.
    private(set) var services: [ServiceProcess] = []
    var service: ServiceProcess { services[services.count - 1] }
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

    init(directory: String, seed: UInt64) async throws {
        let root = Fixtures.packageRoot.path
        self.directory = directory
        self.seed = seed
        brokerSettings = try ShippedBrokerSettings(contentsOf: root + "/Config/mosquitto.conf")
        persistence = directory + "/broker"
        try FileManager.default.createDirectory(atPath: persistence, withIntermediateDirectories: true)
        broker = try LocalMosquitto.start(extraConfig: brokerSettings.extraConfig, persistenceDirectory: persistence)
        let receiver = try await WebhookReceiver.start()
        receivers = [receiver]
        var options = ServiceProcess.Options([
            .brokerURL: broker.url, .fencesFile: root + "/Config/fences.geojson", .journalPath: directory + "/fleetfence.db",
            .clientID: "fleetfence-chaos-\(seed)",
        ])
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
        serviceOptions = options
        do {
            services = [try await ServiceProcess.start(options, workingDirectory: directory)]
        } catch {
            await receiver.stop()
            broker.stop()
            throw error
        }

        var simulationOptions = SimulationOptions(routes: Fixtures.bundledRoutes)
        simulationOptions.broker = broker.url
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
        simulation = try Simulation(options: simulationOptions, logger: simulationLog.logger(label: "fleetsim", level: .notice))
    }

    /// Wall seconds the routes take to publish.
    var publishingSeconds: Double {
        ((simulation.plan.endTime ?? simulation.options.fleet.startTime) - simulation.options.fleet.startTime) / ChaosCampaign.speedup
    }

    private var elapsed: Double { SimulationClock.seconds(ContinuousClock.now - start) }

    // MARK: The run

    func execute(_ schedule: ChaosSchedule) async throws -> ChaosCampaign.Outcome {
        alerts = try await MessageCollector.start(
            url: broker.url, filters: ["fleetfence/alerts/#", "fleetfence/progress/+/+/+"], qos: 1,
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
        switch fault.kind {
        case .serviceKill:
            _ = await service.kill()
            try await Task.sleep(for: wait)
            services.append(try await ServiceProcess.start(serviceOptions, workingDirectory: directory))
        case .servicePause:
            service.signal(SIGSTOP)
            try await Task.sleep(for: wait)
            service.signal(SIGCONT)
        case .brokerPause:
            broker.signal(SIGSTOP)
            try await Task.sleep(for: wait)
            broker.signal(SIGCONT)
        case .brokerKill:
            // Right after a save: what it forgets is what changed since (docs/operations.md "Crashes and restarts").
            try await waitForBrokerSave(after: Date().timeIntervalSince1970)
            began = elapsed
            broker.kill()
            try await Task.sleep(for: wait)
            try broker.restart()
        case .webhookDown:
            break
        }
        return String(format: "%@ %.1f-%.1fs", fault.kind.rawValue, began, elapsed)
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
        let settle = ChaosCampaign.debounce / ChaosCampaign.speedup + ChaosCampaign.silentConfirm + 2
        let until = max(elapsed, quietFrom) + settle
        try await Task.sleep(until: start + .milliseconds(Int64(until * 1000)))
        simulation.stop()
        simulation.stop()
        return try #require(try await running.value)
    }

    /// Everything that came out, judged: the webhook's queue drained first, then the service
    /// stopped cleanly so that its journal holds its last state.
    private func judge(schedule: ChaosSchedule, report: VerifyReport, executed: [String]) async throws -> ChaosCampaign.Outcome {
        let journalPath = serviceOptions[.journalPath] ?? ""
        let drained = try await waitForWebhookQueue(journal: journalPath, timeout: .seconds(120))
        var executed = executed
        if let back = webhookBack, let last = receivers.last?.requests.map(\.at).max(), last > back {
            // What the outage cost the webhook: its back-off (docs/webhooks.md "Webhooks") after the receiver returned.
            executed.append(String(format: "webhook caught up %.1fs after it was back", SimulationClock.seconds(last - back)))
        }
        let status = await service.terminate()

        var checker = ChaosChecker()
        checker.expected = report.expected
        checker.missed = report.missed.map { "\(VerifyReport.label($0)) crossed \(RFC3339.format($0.at))" }
        checker.falseAlerts = report.falseAlerts.map { "\(VerifyReport.label($0)) seq \($0.seq.map(String.init) ?? "?")" }

        let journal = try Journal(readingOnly: journalPath, logger: testLogger("journal"))
        var query = EventQuery()
        query.limit = 1_000_000
        checker.journal = try journal.events(query).events.compactMap { ChaosChecker.Alert(payload: $0.alertJSON) }
        for row in try journal.loadDevices() {
            let record = try DeviceRecordEncoding.decode(row.state)
            checker.journalStates[row.device] = Set(record.regions.filter { $0.state == .inside }.map(\.fence))
        }
        let dead = try journal.webhookQueueState(webhook: ChaosCampaign.webhook)
        try journal.close()

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
        let retained = try await MessageCollector.start(url: broker.url, filters: ["fleetfence/state/+"])
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
        if status != 0 { verdict.problems.append("the service's clean stop ended with status \(status)") }
        if !drained || dead.dead > 0 {
            verdict.problems.append("webhook queue not drained: \(dead.queued) queued, \(dead.dead) dead")
        }
        ChaosCampaign.say("seed=\(seed) executed: \(executed.joined(separator: ", "))")
        return ChaosCampaign.Outcome(
            schedule: schedule, verdict: verdict, seconds: 0, executed: executed, latest: report.receiveDelays?.max,
            context: context(verdict: verdict, report: report, executed: executed))
    }

    // MARK: Waits

    private func waitForFirstPosition() async throws {
        let watcher = try await MessageCollector.start(url: broker.url, filters: ["fleet/+/position"])
        let first = await watcher.next(topicPrefix: "fleet/", timeout: .seconds(30))
        await watcher.stop()
        guard first != nil else { throw TestSupportError("no position within 30 s") }
    }

    /// Until the broker has saved its persistence file after `time` (its autosave).
    private func waitForBrokerSave(after time: Double) async throws {
        let file = persistence + "/" + brokerSettings.persistenceFile
        let deadline = ContinuousClock.now + .seconds(brokerSettings.autosaveSeconds * 2 + 10)
        while ContinuousClock.now < deadline {
            let saved = (try? FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date)?.timeIntervalSince1970
            if let saved, saved > time { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestSupportError("the broker did not save \(file) within \(brokerSettings.autosaveSeconds * 2 + 10) s")
    }

    /// Until the webhook's outbox is empty (every row delivered or dead); `false` on timeout.
    private func waitForWebhookQueue(journal path: String, timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let journal = try Journal(readingOnly: path, logger: testLogger("journal"))
            let state = try journal.webhookQueueState(webhook: ChaosCampaign.webhook)
            try journal.close()
            if state.queued == 0 { return true }
            try await Task.sleep(for: .milliseconds(250))
        }
        return false
    }

    // MARK: End

    private func context(verdict: ChaosChecker.Verdict, report: VerifyReport, executed: [String]) -> String {
        var text = "executed: \(executed.joined(separator: ", "))\n"
        text += verdict.problems.joined(separator: "\n") + "\n--- verify\n\(report.summary)\n"
        text += "--- simulation log (tail)\n\(simulationLog.text.suffix(3000))\n"
        for (index, service) in services.enumerated() {
            text += "--- service \(index + 1) of \(services.count) (tail)\n\(service.logTail(30))\n"
        }
        text += "--- broker log (tail)\n\(broker.log.suffix(3000))"
        return text
    }

    /// Stops everything it started; a paused process is let go on first, or its stop would wait.
    func stop() async {
        service.signal(SIGCONT)
        broker.signal(SIGCONT)
        simulation.stop()
        simulation.stop()
        _ = try? await running?.value
        await alerts?.stop()
        for service in services { await service.terminate() }
        for receiver in receivers { await receiver.stop() }
        broker.stop()
    }
}
