import FleetFenceTesting
import Foundation
import GeofenceEngine
import Testing

@testable import FleetFenceJournal
@testable import FleetFenceService

/// State across restarts end to end (docs/rules.md "The rules"): the service stopped (SIGTERM) or killed (SIGKILL) and started again on the
/// same journal and client id, and the broker restarted under a running service.
@Suite("Service end to end: restarts", .timeLimit(.minutes(1)))
struct ServiceRestartTests {
    /// Enter at T+5 (confirmed T+12) and wait for its alert.
    private func enter(_ h: ServiceHarness, _ device: String) async throws {
        try await h.position(device, north: 300, ts: T)
        try await h.position(device, north: 100, ts: T + 10)
        try await h.position(device, north: 100, ts: T + 12)
        let alerts = await h.waitForAlerts(device, count: 1)
        try #require(alerts.map(\.event) == ["enter"], "\(alerts)")
    }

    /// While the service is down: still inside at T+14, then out from T+20 (crossed at T+17).
    private func exitWhileDown(_ h: ServiceHarness, _ device: String) async throws {
        try await h.position(device, north: 100, ts: T + 14)
        try await h.position(device, north: 300, ts: T + 20)
        try await h.position(device, north: 300, ts: T + 22)
    }

    private func expectExitAfterRestart(_ h: ServiceHarness, _ device: String) async throws {
        let alerts = await h.waitForAlerts(device, count: 2, timeout: .seconds(10))
        #expect(alerts.map(\.event) == ["enter", "exit"], "the enter is not repeated: \(alerts)")
        let exit = try #require(alerts.last)
        #expect(exit.event == "exit")
        #expect(exit.seq == 2, "seq continues across the restart")
        #expect(near(exit.at, T + 17), "\(exit)")
        #expect(exit.json.string("confirmed_at") == rfc3339(T + 22))
        #expect(near(exit.json.double("duration_s"), 12, tolerance: 0.002), "\(exit)")

        // And afterwards: a new enter gets the next seq.
        try await h.position(device, north: 100, ts: T + 30)
        try await h.position(device, north: 100, ts: T + 32)
        try await h.barrier()
        #expect(h.alerts(device).map(\.event) == ["enter", "exit", "enter"])
        #expect(h.alerts(device).map(\.seq) == [1, 2, 3])
    }

    @Test func restartAfterSigterm() async throws {
        try await withService(.asProcess) { h in
            try await enter(h, "rt")
            let first = try #require(h.service)
            #expect(await first.terminate() == 0, "SIGTERM: exit code 0")
            #expect(try await h.retained("fleetfence/status").map(\.text) == ["offline"])
            #expect(FileManager.default.fileExists(atPath: h.journalPath))

            try await exitWhileDown(h, "rt")  // QoS 1: queued by the broker for the service's session
            try await h.startService()
            #expect(h.service?.process?.processID != first.process?.processID)
            try await expectExitAfterRestart(h, "rt")
            // A clean stop left its last mark: nothing was waiting for the broker, nothing goes again.
            #expect(h.service?.process?.log.contains("publishing again") == false, "\(h.service?.process?.logTail() ?? "")")
            #expect(try await h.retained("fleetfence/status").map(\.text) == ["online"])
            let state = try await h.retained("fleetfence/state/rt")
            #expect(state.first.flatMap { JSONObject($0.payload) }?.strings("inside") == ["depot"])
        }
    }

    /// The read side shows the devices restored from the journal before they report again.
    @Test func restoredDevicesAreShownBeforeTheyReportAgain() async throws {
        try await withService { h in
            try await enter(h, "shown")
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            guard case let .inProcess(service)? = h.service else { throw TestError("in-process expected") }
            let view = service.service.readModel.device("shown")
            #expect(view?.inside == ["depot"], "\(String(describing: view))")
            #expect(view?.seq == 1)
        }
    }

    /// Old samples across a clean stop: a sample that changed nothing but the device's latest time is
    /// journaled only by the flush of latest-sample times, and an older one sent after the restart
    /// is too late: the samples a merge needs are held in memory only (docs/rules.md "Late samples").
    @Test func latestSampleTimesSurviveACleanStop() async throws {
        try await withService { h in
            try await enter(h, "clock")
            try await h.position("clock", north: 100, ts: T + 40)  // still inside: only the time changes
            try await h.barrier()
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            try await h.position("clock", north: 300, ts: T + 30)  // older than T+40
            try await h.barrier()
            #expect(await h.waitForLog("too_late=1"), "the replayed sample is dropped as too late")
            #expect(h.alerts("clock").map(\.event) == ["enter"], "nothing alerted twice")
        }
    }

    /// Latest-sample times go into the journal's clock log every second and are folded into
    /// `device_clocks` once a minute, the log's folded rows deleted (docs/operations.md "Journal").
    @Test func latestSampleTimesAreLoggedEachSecondAndFoldedEachMinute() async throws {
        var options = HarnessOptions()
        options.manualClock = true
        try await withService(options) { h in
            for device in ["a", "b"] {
                try await h.position(device, north: 300, ts: T)
                try await h.position(device, north: 300, ts: T + 1)  // only the time changes
            }
            try await h.advance(by: 1.25)
            let reader = try Journal(readingOnly: h.journalPath)
            defer { try? reader.close() }
            func count(_ table: String) throws -> Int64? {
                try reader.db.run("SELECT COUNT(*) AS n FROM \(table)").first?.column("n")?.int64Value
            }
            var stored = try reader.loadDeviceClocks()
            #expect(stored.clocks[ExactID("a")]?.lastTimestamp == T + 1)
            #expect(stored.logged == [ExactID("a"), ExactID("b")], "logged, not folded yet")
            #expect(try count("device_clocks") == 0)

            try await h.advance(by: 60)
            try await h.barrier()
            #expect(await eventually { (try? count("clock_log")) == 0 }, "the folded rows are deleted")
            stored = try reader.loadDeviceClocks()
            #expect(stored.logged.isEmpty)
            #expect(try count("device_clocks") == 2)
            #expect(stored.clocks[ExactID("b")]?.lastTimestamp == T + 1)

            // Logged again after the fold: the log's newer clock is the one a restart applies.
            try await h.position("a", north: 300, ts: T + 2)
            try await h.advance(by: 1.25)
            stored = try reader.loadDeviceClocks()
            #expect(stored.clocks[ExactID("a")]?.lastTimestamp == T + 2)
            #expect(stored.logged == [ExactID("a")])

            // Restarted, a clock only the log holds is folded at once: the fold then deletes the
            // rows that held it, and a service restarted often still empties its log.
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            try await h.advance(by: 1.25)
            #expect(await eventually { (try? count("clock_log")) == 0 }, "folded after the restart")
            stored = try reader.loadDeviceClocks()
            #expect(stored.logged.isEmpty)
            #expect(stored.clocks[ExactID("a")]?.lastTimestamp == T + 2)
        }
    }

    @Test func restartAfterSigkill() async throws {
        try await withService(.asProcess) { h in
            try await enter(h, "rk")
            // Killed once the broker's acknowledgement of the enter is journaled: a kill before
            // that publishes it again at the next start (docs/reliability.md "What is promised"),
            // which a loaded full run once did between the collector's copy and the mark.
            #expect(await eventually {
                let journal = try? Journal(readingOnly: h.journalPath, logger: testLogger("journal"))
                return ((try? journal?.publishedMark())??.alertID ?? 0) >= 1
            }, "the enter's acknowledgement journaled")
            let first = try #require(h.service)
            #expect(await first.process?.kill() == 128 + SIGKILL)
            #expect(await eventually { h.messages("fleetfence/status").last?.text == "offline" }, "last will")

            try await exitWhileDown(h, "rk")
            try await h.startService()
            try await expectExitAfterRestart(h, "rk")
        }
    }

    /// A known gap (docs/reliability.md "Not promised"): an alert committed while the broker is
    /// unreachable waits in the MQTT client's memory, and a kill -9 before the reconnection loses
    /// it on MQTT for good. The journal keeps it (a webhook's outbox would too), but nothing
    /// publishes journaled alerts again at start. Positions over HTTP make the alert while the
    /// broker is down; found while building the chaos campaign, whose checker counts such an
    /// alert as `mqtt_missing`.
    /// The alert waits in libmosquitto's memory when the kill comes; the journal's mark says it
    /// was never acknowledged, so the next start publishes it, and the device's state, again.
    @Test func anAlertCommittedWhileTheBrokerIsDownIsPublishedAfterAKill() async throws {
        var options = HarnessOptions.asProcess
        options.brokerPersistence = true
        options.http = .socket
        try await withService(options) { h in
            let http = HTTPClient(base: try await Self.httpBase(of: try h.process))
            try h.broker.stop()
            let samples = [(300.0, T), (100, T + 10), (100, T + 12)].map { metres, ts in
                let point = Geo.north(metres)
                return #"{"id":"hk","lat":\#(point.lat),"lon":\#(point.lon),"ts":\#(ts)}"#
            }
            let reply = try await http.request("POST", "/api/positions", body: Data(("[" + samples.joined(separator: ",") + "]").utf8))
            #expect(reply.status == 200, "\(reply)")
            let journal = try Journal(readingOnly: h.journalPath)
            let committed = try journal.events(EventQuery()).events.filter { $0.device == "hk" }.map(\.event)
            try journal.close()
            #expect(committed == ["enter"], "the enter is journaled while the broker is down")

            #expect(await h.service?.process?.kill() == 128 + SIGKILL)
            try h.broker.restart()
            // The test's subscriber back first, so that nothing the new service says goes unheard.
            #expect(await eventually(timeout: .seconds(20)) { h.collector.client?.isConnected == true })
            try await h.startService()
            try await h.barrier(timeout: .seconds(20))
            #expect(h.alerts("hk").map(\.event) == ["enter"])
            #expect(try await h.retained("fleetfence/state/hk").map(\.text).first?.contains(#""inside":["depot"]"#) == true)
        }
    }

    /// A broker down when the service starts (a host booting, a broker restarting): the service
    /// waits for it, not ready meanwhile, and serves once it is there. It exited 1 at once.
    @Test func aBrokerDownAtStartIsWaitedFor() async throws {
        var options = HarnessOptions.asProcess
        options.brokerPersistence = true
        options.http = .socket
        try await withService(options) { h in
            #expect(await h.service?.terminate() == 0)
            try h.broker.stop()
            // Launched by hand: the harness's start waits for the service's `online`.
            func launch(_ name: String) throws -> ServiceProcess {
                try ServiceProcess(
                    executable: ServiceProcess.locateExecutable(), options: h.serviceOptions,
                    configFile: "\(h.directory)/\(name).yaml", logPath: "\(h.directory)/\(name).log", workingDirectory: h.directory)
            }
            let service = try launch("late")
            defer { _ = service.kill() }
            #expect(await eventually(timeout: .seconds(10)) { service.log.contains("broker not reachable; trying again") })
            let http = HTTPClient(base: try await Self.httpBase(of: service))
            let notReady = try await http.get("/readyz")
            // Saying what it waits for: the broker, not the journal it has opened.
            #expect(notReady.status == 503 && notReady.text.contains("starting: the MQTT broker is not reachable"), "\(notReady.text)")
            #expect(service.isRunning)
            try h.broker.restart()
            #expect(await eventually(timeout: .seconds(20)) { h.collector.client?.isConnected == true })
            #expect(await eventually(timeout: .seconds(40)) { service.log.contains("fences loaded") }, "\(service.log)")
            #expect(await eventuallyAsync(timeout: .seconds(10)) { (try? await http.get("/readyz").status) == 200 })
            try await h.position("late-starter", north: 300, ts: T)
            try await h.position("late-starter", north: 100, ts: T + 10)
            try await h.position("late-starter", north: 100, ts: T + 12)
            #expect(await h.waitForAlerts("late-starter", count: 1).map(\.event) == ["enter"])
            #expect(await service.terminate() == 0)
            // Asked to stop while it waits, it stops cleanly.
            try h.broker.stop()
            let waiting = try launch("waiting")
            defer { _ = waiting.kill() }
            #expect(await eventually(timeout: .seconds(10)) { waiting.log.contains("broker not reachable") })
            #expect(await waiting.terminate() == 0, "\(waiting.log)")
        }
    }

    /// `http://127.0.0.1:<port>` from the process's `http listening` log line.
    private static func httpBase(of service: ServiceProcess) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            for line in service.log.split(separator: "\n") where line.contains("http listening") {
                if let match = line.firstMatch(of: /\ port=(\d+)/) { return "http://127.0.0.1:\(match.1)" }
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSupportError("the service named no HTTP port within 20 s:\n\(service.logTail())")
    }

    @Test func restartWithNothingQueuedRepeatsNothing() async throws {
        try await withService(.asProcess) { h in
            try await enter(h, "quiet")
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            try await h.position("quiet", north: 100, ts: T + 20)  // still inside
            try await h.position("quiet", north: 120, ts: T + 22)
            try await h.barrier()
            #expect(await h.service?.process?.kill() == 128 + SIGKILL)
            try await h.startService()
            try await h.position("quiet", north: 100, ts: T + 30)
            try await h.barrier()
            #expect(h.alerts("quiet").map(\.event) == ["enter"], "\(h.alerts("quiet"))")
            // The registry is back after each start.
            #expect(try await h.retained("fleetfence/fences/+").map(\.topic) == ["fleetfence/fences/depot"])
        }
    }

    @Test func brokerRestartInTheMiddleOfARun() async throws {
        var options = HarnessOptions()
        options.brokerPersistence = true
        try await withService(options) { h in
            try await enter(h, "bk")
            h.collector.clear()
            try h.broker.restart()

            // The service reconnects and says online again (a live message, not the retained one).
            #expect(await eventually(timeout: .seconds(20)) {
                h.messages("fleetfence/status").contains { $0.text == "online" && !$0.retain }
            }, "\(h.messages("fleetfence/status"))")
            try await h.barrier(timeout: .seconds(20))  // re-subscribed: positions reach it again
            #expect(h.service?.isRunning == true)

            try await h.position("bk", north: 300, ts: T + 20)
            try await h.position("bk", north: 300, ts: T + 22)
            let alerts = await h.waitForAlerts("bk", count: 1)
            #expect(alerts.map(\.event) == ["exit"])
            #expect(alerts.first?.seq == 2)
            #expect(try await h.retained("fleetfence/status").map(\.text) == ["online"])
            #expect(try await h.retained("fleetfence/fences/+").map(\.topic) == ["fleetfence/fences/depot"])
        }
    }

    @Test func sigintStopsCleanlyAndFlushesTheJournal() async throws {
        try await withService(.asProcess) { h in
            try await h.position("si", north: 100, ts: T)  // first sight inside: state only, no alert
            try await h.barrier()
            let service = try h.process
            service.signal(SIGINT)  // at once, before any periodic write
            #expect(await service.waitForExit(timeout: .seconds(10)))
            #expect(service.exitStatus == 0, "SIGINT: exit code 0")
            #expect(try await h.retained("fleetfence/status").map(\.text) == ["offline"])

            try await h.startService()
            try await h.position("si", north: 300, ts: T + 10)  // crossed at T+5
            try await h.position("si", north: 300, ts: T + 12)
            let alerts = await h.waitForAlerts("si", count: 1)
            #expect(alerts.map(\.event) == ["exit"], "the first sight was journaled at the stop")
            #expect(alerts.first?.seq == 1)
            #expect(near(alerts.first?.at, T + 5))
        }
    }

    /// Outside at T, inside from T+10: an enter pending, with evidence from T+10.
    private func pendingEnter(_ h: ServiceHarness, _ device: String) async throws {
        try await h.position(device, north: 300, ts: T)
        try await h.position(device, north: 100, ts: T + 10)
        try await h.barrier()
    }

    /// Still silent after the restart: the pending enter is confirmed at T+10 + debounce.
    private func expectSilenceConfirmsTheEnter(_ h: ServiceHarness, _ device: String) async {
        let alerts = await h.waitForAlerts(device, count: 1, timeout: .seconds(10))
        #expect(alerts.map(\.event) == ["enter"])
        #expect(alerts.first?.json.string("confirmed_at") == rfc3339(T + 12))
        #expect(near(alerts.first?.at, T + 5))
        #expect(alerts.first?.seq == 1)
    }

    @Test func aPendingChangeSurvivesARestartAndSilenceConfirmsIt() async throws {
        var options = HarnessOptions()
        options[.silentConfirm] = "2"
        try await withService(options) { h in
            try await pendingEnter(h, "pc")
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            await expectSilenceConfirmsTheEnter(h, "pc")
        }
    }

    /// A change without an alert is journaled within a tick or so, not only at a clean stop: a
    /// kill -9 after it still finds the pending enter, and silence confirms it.
    @Test func aPendingChangeSurvivesAKill() async throws {
        var options = HarnessOptions.asProcess
        options[.silentConfirm] = "4"
        try await withService(options) { h in
            try await pendingEnter(h, "pk")
            let journal = try SQLiteConnection.open(path: h.journalPath)
            defer { try? journal.close() }
            // Sooner than silence (4 s) confirms the enter and journals the row with its alert.
            let journaled = await eventually(timeout: .seconds(3)) {
                let row = try? journal.run("SELECT state FROM devices WHERE device = 'pk'").first
                let state = try? row.map { try JSONDecoder().decode(DeviceRecord.self, from: Data($0.bytes("state", in: "devices"))) }
                return state?.lastTimestamp == T + 10
            }
            #expect(journaled, "the record of T+10 reaches the journal while the service runs")
            try #require(h.alerts("pk").isEmpty, "killed before silence confirms the enter")
            #expect(await h.service?.process?.kill() == 128 + SIGKILL)
            try await h.startService()
            await expectSilenceConfirmsTheEnter(h, "pk")
        }
    }

    @Test func anExitWhileDownFollowedBySilenceIsConfirmedAfterTheRestart() async throws {
        var options = HarnessOptions()
        options[.silentConfirm] = "2"
        try await withService(options) { h in
            try await enter(h, "ws")
            #expect(await h.service?.terminate() == 0)
            try await h.position("ws", north: 100, ts: T + 14)
            try await h.position("ws", north: 300, ts: T + 20)  // the last word before silence
            try await h.startService()
            let alerts = await h.waitForAlerts("ws", count: 2, timeout: .seconds(10))
            #expect(alerts.map(\.event) == ["enter", "exit"])
            #expect(alerts.last?.json.string("confirmed_at") == rfc3339(T + 22), "t0 + debounce")
            #expect(near(alerts.last?.at, T + 17))
            #expect(alerts.last?.seq == 2)
        }
    }

    @Test func fenceRemovedFromTheFileWhileDownExitsTheDevicesInside() async throws {
        let goneCentre = Geo.north(10_000)
        var options = HarnessOptions()
        options.fences = Fences.collection([
            Fences.circle("depot", radius: 200), Fences.circle("gone", lat: goneCentre.lat, radius: 200),
        ])
        try await withService(options) { h in
            try await h.position("fd", north: 300, ts: T, of: goneCentre)
            try await h.position("fd", north: 100, ts: T + 10, of: goneCentre)
            try await h.position("fd", north: 100, ts: T + 12, of: goneCentre)  // enter gone, seq 1
            await h.waitForAlerts("fd", count: 1)
            #expect(await h.service?.terminate() == 0)
            try Fences.collection([Fences.circle("depot", radius: 200)])
                .write(toFile: h.fencesPath, atomically: true, encoding: .utf8)
            try await h.startService()
            let alerts = await h.waitForAlerts("fd", count: 2)
            #expect(alerts.map(\.topic) == ["fleetfence/alerts/fd/gone/enter", "fleetfence/alerts/fd/gone/exit"])
            #expect(alerts.last?.json.string("reason") == "fence_removed")
            #expect(alerts.last?.seq == 2)
            try await h.barrier()
            #expect(try await h.retained("fleetfence/fences/+").map(\.topic) == ["fleetfence/fences/depot"])
        }
    }

    @Test func aRelativeJournalPathIsFromTheWorkingDirectory() async throws {
        var options = HarnessOptions.asProcess
        options.relativeJournal = "state/../fleet.db"
        try await withService(options) { h in
            try await enter(h, "rel")
            #expect(await h.service?.terminate() == 0)
            #expect(FileManager.default.fileExists(atPath: h.directory + "/fleet.db"))
            try await h.startService()
            try await h.position("rel", north: 300, ts: T + 20)
            try await h.position("rel", north: 300, ts: T + 22)
            let alerts = await h.waitForAlerts("rel", count: 2)
            #expect(alerts.map(\.event) == ["enter", "exit"])
            #expect(alerts.last?.seq == 2)
        }
    }

    @Test func brokerRestartWithoutPersistenceGetsStatusRegistryAndStatesBack() async throws {
        var options = HarnessOptions()
        options.realBroker = true  // mosquitto's own restart
        try await withService(options) { h in
            try await enter(h, "np")
            // A fence set at run time besides the file's: the whole registry must come back.
            try await h.publish(
                "fleetfence/fences/yard/set", Fences.circleDefinition(lat: Geo.north(5_000).lat, radius: 80, name: "Yard"))
            _ = try await h.waitForRetained("fleetfence/fences/yard") { $0 != nil }
            try h.broker.restart()  // no persistence: retained messages and sessions are gone
            // Only the service's new `online` is retained on the new broker (the live one the
            // collector saw may be the first start's).
            #expect(try await h.waitForRetained("fleetfence/status", timeout: .seconds(20)) { $0?.text == "online" }?.text == "online")
            let registry = try await h.waitForRetained("fleetfence/fences/depot") { $0 != nil }
            #expect(registry.flatMap { JSONObject($0.payload) }?.double("radius") == 200, "the registry is published again")
            let yard = try await h.waitForRetained("fleetfence/fences/yard") { $0 != nil }
            #expect(yard.flatMap { JSONObject($0.payload) }?.double("radius") == 80, "with the fence set at run time")
            let state = try await h.waitForRetained("fleetfence/state/np") { $0 != nil }
            #expect(state?.text.contains(#""inside":["depot"]"#) == true, "and every device's state: \(String(describing: state))")
            try await h.barrier(timeout: .seconds(20))  // subscribed again, without a stored session
            try await h.position("np", north: 300, ts: T + 20)
            try await h.position("np", north: 300, ts: T + 22)
            let alerts = await h.waitForAlerts("np", count: 2)
            #expect(alerts.map(\.event) == ["enter", "exit"])
            #expect(alerts.last?.seq == 2)
        }
    }

    /// 2,500 fences: three slices of the registry after the broker lost it. A fence replaced and
    /// one removed meanwhile end as the service holds them, whenever their change falls among the
    /// slices.
    @Test func aLargeRegistryComesBackWholeAfterABrokerRestart() async throws {
        var options = HarnessOptions()
        options.realBroker = true
        let count = 2_500
        options.fences = Fences.collection((0..<count).map { Fences.circle("f-\($0)", lat: Geo.north(Double($0) * 10).lat, radius: 100) })
        try await withService(options) { h in
            // The file's registry goes after it, a slice at a time: the restart comes once it is
            // all out (a debug build under a loaded run took up to 30 s).
            _ = await h.waitForMessages("fleetfence/fences/+", count: count, timeout: .seconds(45))
            #expect(h.messages("fleetfence/fences/+").count >= count, "the file's registry went out before the restart")
            try h.broker.restart()  // no persistence: the retained registry is gone
            // The new broker holds `online` only once the service said it again (the live one the
            // collector saw may be the first start's): from then on a `set` is heard.
            let status = try await h.waitForRetained("fleetfence/status", timeout: .seconds(20)) { $0?.text == "online" }
            try #require(status?.text == "online")
            try await h.publish("fleetfence/fences/f-2400/set", Fences.circleDefinition(lat: Geo.north(24_000).lat, radius: 90))
            try await h.publish("fleetfence/fences/f-10/set", "")
            let replaced = try await h.waitForRetained("fleetfence/fences/f-2400", timeout: .seconds(20)) {
                $0.flatMap { JSONObject($0.payload) }?.double("radius") == 90
            }
            #expect(replaced.flatMap { JSONObject($0.payload) }?.double("radius") == 90, "the replace was heard")
            // The load's entries, then the registry again (less f-10 if removed before its slice),
            // the replace and the removal.
            #expect(await eventually(timeout: .seconds(30)) { h.messages("fleetfence/fences/+").count >= 2 * count })
            try await h.barrier(timeout: .seconds(20))
            let retained = try await h.retained("fleetfence/fences/+", settle: .seconds(1))
            let byTopic = Dictionary(retained.map { ($0.topic, $0.payload) }) { _, newer in newer }
            // What the live subscription saw of the two fences, in order: on a failure, whether an
            // older entry came after the newer one.
            let seen = h.messages("fleetfence/fences/+").filter { $0.topic.hasSuffix("/f-10") || $0.topic.hasSuffix("/f-2400") }
                .map { "\($0.topic.split(separator: "/").last ?? ""):\(JSONObject($0.payload)?.double("radius").map { "\($0)" } ?? "empty")" }
            #expect(byTopic.count == count - 1, "every fence held, and none removed: \(byTopic.count); seen \(seen)")
            #expect(byTopic["fleetfence/fences/f-10"] == nil, "the removed fence stays removed; seen \(seen)")
            #expect(byTopic["fleetfence/fences/f-2400"].flatMap { JSONObject($0) }?.double("radius") == 90, "the newest entry; seen \(seen)")
            #expect(byTopic["fleetfence/fences/f-2499"].flatMap { JSONObject($0) }?.double("radius") == 100)
        }
    }

    @Test func eventOrderSurvivesARestart() async throws {
        try await withService { h in
            try await enter(h, "ord")
            try await h.position("ord", north: 100, ts: T + 14)
            try await h.barrier()
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            try await h.position("ord", north: 300, ts: T + 13)  // older than T+14: dropped, also now
            try await h.position("ord", north: 300, ts: T + 20)
            try await h.position("ord", north: 300, ts: T + 21)  // 1 s of evidence only (5 s with T+13)
            try await h.barrier()
            #expect(h.alerts("ord").map(\.event) == ["enter"], "\(h.alerts("ord"))")
            try await h.position("ord", north: 300, ts: T + 22)
            let alerts = await h.waitForAlerts("ord", count: 2)
            #expect(alerts.last?.json.string("confirmed_at") == rfc3339(T + 22))
            #expect(near(alerts.last?.at, T + 17))
        }
    }

    /// While the broker is down the service hears nobody: that is not the devices' silence. A
    /// change pending at the outage is confirmed by silence only after it, and a sample queued
    /// meanwhile still cancels it.
    @Test func aBrokerOutageIsNotTheDevicesSilence() async throws {
        var options = HarnessOptions()
        options.brokerPersistence = true
        options[.silentConfirm] = "5"
        try await withService(options) { h in
            try await h.position("out", north: 300, ts: T)
            try await h.position("out", north: 100, ts: T + 10)  // pending enter, then silence
            try await h.position("back", north: 300, ts: T)
            try await h.position("back", north: 100, ts: T + 10)  // pending enter, then back out
            try await h.barrier()
            try h.broker.stop()
            try await Task.sleep(for: .seconds(7))  // longer than the silence
            try h.broker.restart()
            try await h.position("back", north: 300, ts: T + 11)  // within the debounce: no enter
            let alerts = await h.waitForAlerts("out", count: 1, timeout: .seconds(20))
            #expect(alerts.map(\.event) == ["enter"])
            #expect(alerts.first?.json.string("confirmed_at") == rfc3339(T + 12))
            try await h.barrier(timeout: .seconds(20))
            #expect(h.alerts("out").count == 1)
            #expect(h.alerts("back").isEmpty, "\(h.alerts("back"))")
        }
    }
}
