import Foundation
import GeofenceEngine
import Logging
import MQTT
import Synchronization

/// A whole simulator run: trucks publish their routes in simulated time, and with `verify` the
/// service's alerts are scored against ground truth. `fleetsim` and `fleetfence demo` both run this.
public final class Simulation: Sendable {
    public let options: SimulationOptions
    public let plan: FleetPlan
    private let logger: Logger
    private let mqttLogger: Logger
    private let stops = Atomic<Int>(0)
    private let published = Atomic<Bool>(false)

    public init(options: SimulationOptions, logger: Logger) throws(SimulationError) {
        try Self.validate(options)
        self.logger = logger
        // Fifty connections saying "connected" and "disconnected" is noise; their trouble is not.
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .notice)
        mqttLogger = quiet
        var options = options
        if options.format.needsWholeSeconds { options.fleet.wholeSeconds = true }
        // The service names an OwnTracks device `<user>-<device>` (docs/trackers.md "OwnTracks over HTTP"):
        // the fleet's ids are what the service will call them, so that the alerts, ground truth
        // and the score all speak of the same devices.
        if options.format == .owntracksHTTP {
            options.fleet.prefix = HTTPTruckPublisher.ownTracksUser + "-" + options.fleet.prefix
        }
        options.fleet.startTime -= Self.pastStart(options: options, logger: logger)
        self.options = options
        plan = FleetPlan(routes: options.routes, options: options.fleet)
    }

    /// Seconds to start simulated time before `startTime`, so that no position's `ts` gets further
    /// ahead of the wall clock than the service accepts (docs/simulator.md "Simulator"): at 20x a 30-minute
    /// route would otherwise end 28 minutes in the future. Simulated time then catches up with the
    /// clock near the end of the run. A rerun against a service that remembers the last one starts
    /// after it only when the runs are that far apart.
    static func pastStart(options: SimulationOptions, logger: Logger) -> Double {
        guard options.speedup > 1 else { return 0 }
        // Ten seconds for the clocks of publisher and service to disagree.
        let lead = max(0, options.futureLimit - 10)
        guard let end = FleetPlan(routes: options.routes, options: options.fleet).endTime else {
            logger.warning(
                "a fleet that loops without --duration at --speedup \(options.speedup) runs ahead of the clock: after \(Int(lead / (options.speedup - 1))) s the service refuses positions from the future (geofence.max_future_s); give --duration")
            return 0
        }
        let span = end - options.fleet.startTime
        let shift = max(0, span * (1 - 1 / options.speedup) - lead)
        if shift > 0 {
            logger.info("simulated time starts \(Int(shift.rounded(.up))) s in the past, so that no position is more than \(Int(lead)) s ahead of the clock")
        }
        return shift.rounded(.up)
    }

    /// Runs `options` to the end; see `run(onAlert:)`.
    public static func run(
        _ options: SimulationOptions, logger: Logger, onAlert: (@Sendable (String) -> Void)? = nil
    ) async throws -> VerifyReport? {
        try await Simulation(options: options, logger: logger).run(onAlert: onAlert)
    }

    /// First call: stop publishing, then settle and report as usual. Second call: report
    /// without waiting any longer. Safe from any thread (a signal handler's queue, say).
    public func stop() {
        stops.add(1, ordering: .relaxed)
    }

    /// How many times `stop()` was called.
    public var stopRequests: Int { stops.load(ordering: .relaxed) }

    /// Whether every position has been published (or publishing was stopped) and the run now
    /// settles: a caller that must end the settle itself (a chaos run, whose faults may outlast
    /// the routes) calls `stop()` twice only after this, so that no position goes unsent.
    public var hasFinishedPublishing: Bool { published.load(ordering: .acquiring) }

    /// Publishes until every truck has finished (or `stop()`, or the task is cancelled), then,
    /// with `verify`, waits for the service to settle and returns the report.
    /// `onAlert` gets one readable line per alert as it arrives (from the MQTT thread).
    public func run(onAlert: (@Sendable (String) -> Void)? = nil) async throws -> VerifyReport? {
        let progress = ProgressLine(enabled: options.progress)
        defer { progress.clear() }

        // Alerts first, so that none published after the first position is missed.
        var collector: AlertCollector?
        if options.verify != nil || onAlert != nil {
            var forward: (@Sendable (ReceivedAlert) -> Void)?
            if let onAlert {
                forward = { @Sendable alert in progress.printAbove { onAlert(AlertLine.format(alert)) } }
            }
            let subscriber = try AlertCollector(
                options: try alertOptions(), prefix: options.alertsPrefix, logger: mqttLogger, onAlert: forward)
            do {
                try await subscriber.start(timeout: .seconds(10))
            } catch {
                throw SimulationError.connectFailed("\(options.broker): \(error)")
            }
            collector = subscriber
        }
        let publisher: any PositionSender
        do {
            try await TourSetter.set(
                options.tours, options: try clientOptions(id: "\(options.clientIDPrefix)tours"), prefix: options.alertsPrefix,
                timeout: .seconds(10), logger: mqttLogger)
            if options.format.isHTTP, let http = options.http {
                publisher = HTTPTruckPublisher(base: http, format: options.format, plan: plan, logger: logger)
            } else {
                publisher = try TruckPublisher(options: options, plan: plan, logger: mqttLogger)
            }
            try await publisher.connect(timeout: .seconds(10))
        } catch {
            await collector?.stop()
            throw error
        }
        let rate = Double(plan.trucks.count) / options.fleet.interval * options.speedup
        let channel =
            options.format.isHTTP
            ? "HTTP (\(publisher.connectionCount) requests at a time)" : "\(publisher.connectionCount) connections"
        logger.info("\(plan.trucks.count) trucks on \(plan.routeCount) routes over \(channel), about \(Int(rate)) positions/s")
        if rate > 50_000 {
            logger.warning("about \(Int(rate)) positions/s is more than one broker on a small machine takes; positions will lag behind the clock (their ts stays right). Raise --interval or lower --speedup.")
        }

        let clock = SimulationClock(simulatedStart: options.fleet.startTime, speedup: options.speedup)
        let through = await publish(publisher, clock: clock, progress: progress, collector: collector)
        // A tracker keeps its fixes until the broker has them: a broker hung or restarting when the
        // replay ends is waited for (a minute), not taken as the fixes' loss.
        await publisher.disconnect(waitFor: options.qos > 0 ? .seconds(60) : .zero)
        published.store(true, ordering: .releasing)
        let sent = publisher.sentCount, dropped = publisher.droppedCount
        logger.info("published \(sent) positions (\(dropped) dropped) over \(Int(through - clock.simulatedStart)) simulated seconds")

        guard let verify = options.verify, let collector else {
            await collector?.stop()
            return nil
        }
        // Ground truth is heavy for big fleets: work it out while the service settles.
        let truth = Task.detached(priority: .utility) { [plan, tours = options.tours, format = options.format] in
            GroundTruth.expectedAlerts(
                plan: plan, fences: verify.fences, tours: tours, rules: verify.rules, through: through, format: format)
        }
        let settleSeconds = verify.settleSeconds(speedup: options.speedup)
        if settleSeconds < verify.rules.settings.silentConfirmSeconds {
            logger.warning("waiting \(settleSeconds) s, less than the service's silent confirmation (\(verify.rules.settings.silentConfirmSeconds) s): changes only silence confirms will show as missed")
        }
        await settle(seconds: settleSeconds, progress: progress, collector: collector)
        progress.clear()
        await collector.stop()

        // Alerts from an earlier run for the same device names are not this run's.
        let received = collector.alerts
        let current = received.filter { $0.at >= clock.simulatedStart - verify.tolerance }
        let expected = GroundTruth.allowingForExpiry(await truth.value, fences: verify.fences, wallTime: clock.wallTime(at:))
        var report = VerifyScoring.score(
            expected: expected, received: current, devices: Set(plan.trucks.map(\.device)),
            fences: Set(verify.fences.map(\.id)), tours: Set(options.tours.map(\.id)), tolerance: verify.tolerance,
            debounce: verify.rules.settings.debounceSeconds, wallTime: clock.wallTime(at:))
        report.ignored += received.count - current.count
        report.trucks = plan.trucks.count
        report.model = plan.options.model
        report.positions = sent
        report.simulatedSeconds = through - clock.simulatedStart
        return report
    }

    /// Publishes every position as its simulated time comes. Returns the simulated time up to
    /// which every due position was published.
    private func publish(
        _ publisher: any PositionSender, clock: SimulationClock, progress: ProgressLine, collector: AlertCollector?
    ) async -> Double {
        var schedule = FleetSchedule(plan: plan)
        var through = clock.simulatedStart
        let end = plan.endTime ?? .infinity
        var lastShown = ContinuousClock.now
        var sentAtLastShown = 0
        while stopRequests == 0, !Task.isCancelled, schedule.nextTime != nil {
            let now = clock.now
            // A bounded batch, so that stop, cancellation and progress stay responsive when
            // publishing falls behind the clock.
            var batch = 0
            while batch < 2000, let sample = schedule.next(through: now) {
                publisher.publish(sample)
                through = max(through, sample.time)
                batch += 1
            }
            if batch < 2000 { through = max(through, min(now, end)) }

            if ContinuousClock.now - lastShown >= .milliseconds(500) {
                let sent = publisher.sentCount
                let perSecond = Double(sent - sentAtLastShown) / SimulationClock.seconds(ContinuousClock.now - lastShown)
                let lag = schedule.nextTime.map { max(0, clock.now - $0) } ?? 0
                progress.update(
                    "trucks \(schedule.activeTrucks) active | \(Int(perSecond)) positions/s | sent \(sent)"
                        + (collector.map { " | alerts \($0.count)" } ?? "") + " | sim \(AlertLine.clock(now))"
                        + (lag > 1 ? String(format: " | behind %.0f s", lag) : ""))
                lastShown = .now
                sentAtLastShown = sent
            }
            if batch >= 2000 {
                await Task.yield()
            } else if let due = schedule.nextTime, due > clock.now {
                // Sleep until the next position is due, but wake for stop and progress.
                let wait = min(clock.wallDelay(until: due), .milliseconds(100))
                do { try await Task.sleep(for: wait) } catch { break }
            }
        }
        return through
    }

    /// Waits for late alerts: pending changes of trucks that just went quiet are confirmed by
    /// the service only after `silent_confirm_s` of wall-clock silence.
    private func settle(seconds: Double, progress: ProgressLine, collector: AlertCollector) async {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < deadline, stopRequests < 2, !Task.isCancelled {
            let left = SimulationClock.seconds(deadline - ContinuousClock.now)
            progress.update(String(format: "waiting %.0f s for the service to confirm the last changes | alerts %d", left, collector.count))
            do { try await Task.sleep(for: .milliseconds(200)) } catch { break }
        }
    }

    /// A client on every broker of `--broker`, with a clean session (`AlertCollector` makes its
    /// own persistent for the run).
    private func clientOptions(id: String) throws -> MQTTOptions {
        let urls = try MQTTURL.list(parsing: options.broker)
        var client = MQTTOptions(
            url: urls[0], clientID: id, cleanSession: true, username: options.username, password: options.password,
            caFile: options.caFile)
        client.setBrokers(urls)
        return client
    }

    private func alertOptions() throws -> MQTTOptions {
        try clientOptions(id: "\(options.clientIDPrefix)alerts")
    }

    private static func validate(_ options: SimulationOptions) throws(SimulationError) {
        let fleet = options.fleet
        func require(_ ok: Bool, _ reason: String) throws(SimulationError) {
            if !ok { throw .invalidOptions(reason) }
        }
        try require(!options.routes.isEmpty, "no routes")
        try require(fleet.trucks >= 1, "--trucks must be at least 1")
        try require(options.speedup > 0 && options.speedup.isFinite, "--speedup must be a positive number")
        try require(fleet.interval > 0 && fleet.interval.isFinite, "--interval must be a positive number of seconds")
        try require(fleet.noise >= 0 && fleet.noise.isFinite, "--noise must be 0 or more metres")
        try require(fleet.speedKmh > 0 && fleet.speedKmh.isFinite, "--speed-kmh must be positive")
        try require(fleet.stagger >= 0, "--stagger must be 0 or more seconds")
        try require(fleet.duration.map { $0 > 0 } ?? true, "--duration must be positive")
        try require(options.qos == 0 || options.qos == 1, "--qos must be 0 or 1")
        try require(options.maxConnections >= 1, "--connections must be at least 1")
        if options.format.isHTTP {
            // docs/trackers.md "Connecting trackers": OsmAnd and OwnTracks' HTTP mode go to the service's
            // HTTP interface; MQTT still carries the alerts.
            let base = options.http ?? ""
            try require(
                base.hasPrefix("http://") || base.hasPrefix("https://"),
                "--format \(options.format.rawValue) sends to the service's HTTP interface: give --http http://host:port")
        } else {
            // Traccar's forwards name their device in the payload: one topic may carry the whole fleet.
            try require(
                options.format == .traccar || options.topicTemplate.contains("{device}"),
                "--topic-template must contain {device} (the \(options.format.rawValue) format's device is its topic level)")
        }
        if options.format.needsWholeSeconds {
            // OwnTracks' `tst` is whole seconds: samples between them would be judged at other
            // instants by the service than by ground truth.
            let whole = { (seconds: Double) in seconds.rounded() == seconds }
            try require(
                whole(fleet.interval) && (fleet.parkedInterval.map(whole) ?? true),
                "--format \(options.format.rawValue) sends whole seconds (OwnTracks' tst): --interval and --parked-interval must be whole")
        }
        try require(!options.topicTemplate.contains("+") && !options.topicTemplate.contains("#"),
                    "--topic-template cannot contain MQTT wildcards")
        do {
            _ = try MQTTURL.list(parsing: options.broker)
        } catch {
            throw .invalidOptions("--broker \(options.broker): \(error)")
        }
    }
}
