import FleetFenceTesting
import Foundation
import Testing

/// The region state machine as seen from outside: positions in, alerts and state out.
/// Debounce 2 s; event times are fixed (`T + offset`), so the outcome does not depend on timing.
@Suite("Service end to end: geofence rules", .timeLimit(.minutes(1)))
struct ServiceRulesTests {
    @Test func cleanEnterAndExitWithInterpolatedTimes() async throws {
        try await withService { h in
            try await h.position("t", north: 500, ts: T)  // 300 m outside
            try await h.position("t", north: 100, ts: T + 8)  // 100 m inside: crossed 3/4 of the way, T+6
            try await h.position("t", north: 100, ts: T + 10)  // debounce from T+8: confirmed
            try await h.position("t", north: 260, ts: T + 18)  // 60 m outside: crossed 100/160 of the way, T+15
            try await h.position("t", north: 260, ts: T + 20)
            let alerts = await h.waitForAlerts("t", count: 2)
            try #require(alerts.count == 2, "\(alerts)")
            #expect(alerts.map(\.event) == ["enter", "exit"])
            #expect(near(alerts[0].at, T + 6), "\(alerts[0])")
            #expect(alerts[0].json.string("confirmed_at") == rfc3339(T + 10))
            #expect(near(alerts[1].at, T + 15), "\(alerts[1])")
            #expect(alerts[1].json.string("confirmed_at") == rfc3339(T + 20))
            #expect(near(alerts[1].json.double("lat"), Geo.north(260).lat, tolerance: 1e-9))
            #expect(near(alerts[1].json.double("duration_s"), 9, tolerance: 0.002))
            #expect(alerts.map(\.seq) == [1, 2])
        }
    }

    @Test func jitterInTheHysteresisBandRaisesNothing() async throws {
        var options = HarnessOptions()
        options[.silentConfirm] = "2"  // silence must not confirm a change without evidence either
        options.manualClock = true
        try await withService(options) { h in
            try await h.position("j", north: 100, ts: T)  // first sight, inside
            var offset = 2.0
            for metres in [195.0, 205, 195, 205, 203, 197, 205, 195, 205, 205, 205] {  // ±5 m of the boundary
                try await h.position("j", north: metres, ts: T + offset)
                offset += 2
            }
            for _ in 0..<10 {  // a long stay just outside, inside the band
                try await h.position("j", north: 206, ts: T + offset)
                offset += 2
            }
            try await h.advance(by: 2.6)
            #expect(h.alerts("j").isEmpty, "\(h.alerts("j"))")
            #expect(h.states("j").map { $0.strings("inside") ?? [] } == [["depot"]])
        }
    }

    @Test func briefExcursionIsNoExit() async throws {
        try await withService { h in
            try await h.position("b", north: 100, ts: T)  // first sight, inside
            try await h.position("b", north: 300, ts: T + 20)  // out...
            try await h.position("b", north: 300, ts: T + 21.5)  // ...for 1.5 s only
            try await h.position("b", north: 100, ts: T + 22)  // back: cancelled
            try await h.barrier()
            #expect(h.alerts("b").isEmpty)

            // A sample on the old side, even inside the band, restarts the debounce.
            try await h.position("b", north: 300, ts: T + 30)
            try await h.position("b", north: 195, ts: T + 31)  // 5 m inside: no evidence, but the old side
            try await h.position("b", north: 300, ts: T + 32.5)
            try await h.position("b", north: 300, ts: T + 34)  // 1.5 s since T+32.5
            try await h.barrier()
            #expect(h.alerts("b").isEmpty, "\(h.alerts("b"))")

            try await h.position("b", north: 300, ts: T + 34.5)  // 2 s since T+32.5
            let alerts = await h.waitForAlerts("b", count: 1)
            #expect(alerts.map(\.event) == ["exit"])
            #expect(alerts.first?.json.string("confirmed_at") == rfc3339(T + 34.5))
            #expect(alerts.first?.seq == 1)
        }
    }

    @Test func staleAndDuplicateSamplesAreDroppedAndCounted() async throws {
        try await withService { h in
            try await h.position("d", north: 300, ts: T)
            try await h.position("d", north: 100, ts: T + 10)
            try await h.position("d", north: 100, ts: T + 12)  // enter
            try await h.position("d", north: 100, ts: T + 12)  // duplicate
            try await h.position("d", north: 300, ts: T + 12)  // same time, other place: dropped
            try await h.position("d", north: 300, ts: T + 11)  // older: merged after the 10 s gap, T+12 cancels its exit
            try await h.position("d", north: 300, ts: T + 13)  // outside evidence from T+13...
            try await h.position("d", north: 300, ts: T + 14.5)  // ...not yet 2 s (it would be from T+12)
            try await h.barrier()
            #expect(h.alerts("d").map(\.event) == ["enter"])

            try await h.position("d", north: 100, ts: T + 12)  // replay of the enter: a repeat of a fix held (a minute after the gap)
            try await h.position("d", north: 300, ts: T + 15)  // exit
            try await h.position("d", north: 300, ts: T + 15)  // duplicate
            try await h.position("d", north: 100, ts: T + 15)  // same time, other side: dropped
            try await h.position("d", north: 300, ts: T + 16)
            try await h.barrier()
            let alerts = h.alerts("d")
            #expect(alerts.map(\.event) == ["enter", "exit"], "nothing alerted twice: \(alerts)")
            #expect(alerts.map(\.seq) == [1, 2])
            #expect(alerts.last?.json.string("confirmed_at") == rfc3339(T + 15))
            #expect(h.errors("d").isEmpty, "stale samples are dropped, not rejected")
            #expect(
                await h.waitForLog("stale=5 late=1 too_late=0"),
                "the drops and the merge are counted in the stats line: \(h.service?.log.components(separatedBy: "stats").last ?? "")")
        }
    }

    @Test func firstSightIsSilentButRetainedStateShowsIt() async throws {
        try await withService { h in
            try await h.position("f", north: 100, ts: T)  // first sight, inside: no enter
            try await h.position("f", north: 100, ts: T + 2)
            try await h.position("f", north: 100, ts: T + 4)
            try await h.barrier()
            #expect(h.alerts("f").isEmpty)
            let retained = try await h.retained("fleetfence/state/f")
            let state = try #require(retained.first.flatMap { JSONObject($0.payload) })
            #expect(retained.first?.retain == true)
            #expect(state.strings("inside") == ["depot"])
            #expect(state.string("at") == rfc3339(T))

            // Afterwards the state is known: leaving is alerted.
            try await h.position("f", north: 300, ts: T + 10)  // crossed at T+7
            try await h.position("f", north: 300, ts: T + 12)
            let alerts = await h.waitForAlerts("f", count: 1)
            #expect(alerts.map(\.event) == ["exit"])
            #expect(near(alerts.first?.at, T + 7))
            #expect(near(alerts.first?.json.double("duration_s"), 7, tolerance: 0.002), "inside since first sight at T")
        }
    }

    @Test func silenceConfirmsAPendingChange() async throws {
        var options = HarnessOptions()
        options[.silentConfirm] = "2"
        options.manualClock = true
        try await withService(options) { h in
            try await h.position("s-in", north: 300, ts: T)
            try await h.position("s-out", north: 100, ts: T)
            try await h.position("s-in", north: 100, ts: T + 10)  // pending enter, then silence
            try await h.position("s-out", north: 300, ts: T + 10)  // pending exit, then silence
            try await h.barrier()
            #expect(h.alerts().isEmpty, "nothing before the silence is long enough")
            try await h.advance(by: 1.75)
            #expect(h.alerts().isEmpty, "confirmed after silent_confirm_s of the service's clock, not before")
            try await h.advance(by: 0.5)
            let enter = h.alerts("s-in").first
            let exit = h.alerts("s-out").first

            #expect(enter?.event == "enter")
            #expect(near(enter?.at, T + 5))
            #expect(enter?.json.string("confirmed_at") == rfc3339(T + 12), "t0 + debounce")
            #expect(near(enter?.json.double("lat"), Geo.north(100).lat, tolerance: 1e-9))
            #expect(enter?.seq == 1)
            #expect(exit?.event == "exit")
            #expect(exit?.json.string("confirmed_at") == rfc3339(T + 12))
            #expect(near(exit?.json.double("lat"), Geo.north(300).lat, tolerance: 1e-9))

            let inState = try await h.waitForRetained("fleetfence/state/s-in") { message in
                message.flatMap { JSONObject($0.payload) }?.strings("inside") == ["depot"]
            }
            #expect(inState.flatMap { JSONObject($0.payload) }?.string("at") == rfc3339(T + 12))
            let outState = try await h.retained("fleetfence/state/s-out")
            #expect(outState.first.flatMap { JSONObject($0.payload) }?.strings("inside") == [])
        }
    }

    /// A service that did not run for a while (SIGSTOP, a suspended host or VM) heard nobody
    /// meanwhile: what the devices sent waits in the broker. That is not their silence either. A
    /// change pending when it stopped is confirmed by silence only `silent_confirm_s` after it
    /// runs again, and a sample the broker kept meanwhile still cancels it. Seen while building
    /// the chaos campaign's service pause (docs/reliability.md): the first tick after the pause
    /// confirmed both at once, and `back` got an enter and an exit it never made.
    @Test func timeTheServiceDidNotRunIsNotTheDevicesSilence() async throws {
        var options = HarnessOptions()
        options[.silentConfirm] = "2"
        options.manualClock = true
        try await withService(options) { h in
            try await h.position("back", north: 300, ts: T)
            try await h.position("back", north: 100, ts: T + 10)  // pending enter, then back out
            try await h.position("quiet", north: 300, ts: T)
            try await h.position("quiet", north: 100, ts: T + 10)  // pending enter, then silence
            try await h.barrier()
            // Stopped for 5 s: the next tick comes 5 s after the one before, in one step.
            let clock = try #require(h.clock)
            await clock.advance(by: 5)
            try await h.barrier()
            #expect(h.alerts().isEmpty, "the pause counted as silence: \(h.alerts())")
            // What the broker kept: back outside within the debounce.
            try await h.position("back", north: 300, ts: T + 11)
            try await h.advance(by: 3)
            #expect(h.alerts("back").isEmpty, "\(h.alerts("back"))")
            #expect(h.alerts("quiet").map(\.event) == ["enter"], "truly silent after the pause: confirmed")
            #expect(h.alerts("quiet").first?.json.string("confirmed_at") == rfc3339(T + 12))
        }
    }

    @Test func dwellOncePerStay() async throws {
        var options = HarnessOptions()
        options.fences = Fences.collection([
            Fences.circle("yard", radius: 200, name: "Yard", notify: ["enter", "exit", "dwell"], dwell: 10)
        ])
        try await withService(options) { h in
            try await h.position("w", north: 300, ts: T)
            for offset in [10.0, 12, 14, 15, 17, 20, 25] {  // entered at T+5; 10 s inside at T+15
                try await h.position("w", north: 100, ts: T + offset)
            }
            try await h.position("w", north: 300, ts: T + 30)  // crossed at T+27.5
            try await h.position("w", north: 300, ts: T + 32)
            for offset in [40.0, 42, 45, 46, 50] {  // entered again at T+36; 10 s inside at T+46
                try await h.position("w", north: 100, ts: T + offset)
            }
            try await h.barrier()
            let alerts = h.alerts("w")
            #expect(alerts.map(\.event) == ["enter", "dwell", "exit", "enter", "dwell"], "\(alerts)")
            #expect(alerts.map(\.seq) == [1, 2, 3, 4, 5])
            let dwell = try #require(alerts.first { $0.event == "dwell" })
            #expect(dwell.topic == "fleetfence/alerts/w/yard/dwell")
            #expect(dwell.json.keys == ServiceTopicsTests.alertKeys.union(["dwell_s"]))
            #expect(near(dwell.json.double("dwell_s"), 10, tolerance: 0.002))
            #expect(dwell.json.string("confirmed_at") == rfc3339(T + 15))
            #expect(near(dwell.at, T + 5), "at: when the stay began")
            #expect(near(alerts[2].json.double("duration_s"), 22.5, tolerance: 0.002))
            #expect(alerts.last?.json.string("confirmed_at") == rfc3339(T + 46))
        }
    }

    @Test func notifyFiltersAlertsButNotState() async throws {
        let b = Geo.north(5_000)
        var options = HarnessOptions()
        options.fences = Fences.collection([
            Fences.circle("in-only", radius: 200, notify: ["enter"]),
            Fences.circle("out-only", lat: b.lat, radius: 200, notify: ["exit"]),
        ])
        try await withService(options) { h in
            try await h.position("n", north: 300, ts: T)
            try await h.position("n", north: 100, ts: T + 10)
            try await h.position("n", north: 100, ts: T + 12)  // enter in-only: alerted
            try await h.position("n", north: 300, ts: T + 20)
            try await h.position("n", north: 300, ts: T + 22)  // exit in-only: not
            try await h.position("n", north: 300, ts: T + 30, of: b)
            try await h.position("n", north: 100, ts: T + 40, of: b)
            try await h.position("n", north: 100, ts: T + 42, of: b)  // enter out-only: not
            try await h.barrier()
            #expect(h.states("n").last?.strings("inside") == ["out-only"], "the state changes all the same")
            try await h.position("n", north: 300, ts: T + 50, of: b)
            try await h.position("n", north: 300, ts: T + 52, of: b)  // exit out-only: alerted
            try await h.barrier()
            let alerts = h.alerts("n")
            #expect(alerts.map(\.topic) == ["fleetfence/alerts/n/in-only/enter", "fleetfence/alerts/n/out-only/exit"])
            #expect(alerts.map(\.seq) == [1, 2], "seq counts alerts")
            #expect(h.states("n").map { $0.strings("inside") ?? ["?"] } == [[], ["in-only"], [], ["out-only"], []])
        }
    }

    @Test func oneSampleEnteringTwoFencesGivesConsecutiveSeqs() async throws {
        var options = HarnessOptions()
        options.fences = Fences.collection([
            Fences.circle("b-outer", radius: 250), Fences.circle("a-inner", radius: 200),
        ])
        try await withService(options) { h in
            try await h.position("two", north: 400, ts: T)
            try await h.position("two", north: 100, ts: T + 10)
            try await h.position("two", north: 100, ts: T + 12)
            let alerts = await h.waitForAlerts("two", count: 2)
            #expect(Set(alerts.map(\.topic)) == ["fleetfence/alerts/two/a-inner/enter", "fleetfence/alerts/two/b-outer/enter"])
            #expect(alerts.compactMap(\.seq).sorted() == [1, 2])
            #expect(h.states("two").last?.strings("inside") == ["a-inner", "b-outer"])
            #expect(h.states("two").count == 2, "one state message for the step")
        }
    }

    @Test func seqGrowsByOnePerDevice() async throws {
        try await withService { h in
            func cross(_ device: String, to metres: Double, at offset: Double) async throws {
                try await h.position(device, north: metres, ts: T + offset)
                try await h.position(device, north: metres, ts: T + offset + 2)
            }
            try await h.position("a", north: 300, ts: T)
            try await h.position("b", north: 300, ts: T)
            try await cross("a", to: 100, at: 10)
            try await cross("b", to: 100, at: 10)
            try await cross("a", to: 300, at: 20)
            try await cross("a", to: 100, at: 30)
            try await cross("b", to: 300, at: 30)
            try await cross("a", to: 300, at: 40)
            try await h.barrier()
            #expect(h.alerts("a").map(\.event) == ["enter", "exit", "enter", "exit"])
            #expect(h.alerts("a").map(\.seq) == [1, 2, 3, 4])
            #expect(h.alerts("b").map(\.event) == ["enter", "exit"])
            #expect(h.alerts("b").map(\.seq) == [1, 2])
        }
    }

    /// Silence confirms a change the fence does not alert (`notify` without it): the retained state
    /// must still carry the device's position and the time of the change, as it does with an alert.
    @Test func silenceConfirmsAChangeThatIsNotAlerted() async throws {
        var options = HarnessOptions()
        options[.silentConfirm] = "2"
        options.manualClock = true
        options.fences = Fences.collection([Fences.circle("exit-only", radius: 200, notify: ["exit"])])
        try await withService(options) { h in
            try await h.position("q", north: 300, ts: T)
            try await h.position("q", north: 100, ts: T + 10)  // pending enter, then silence
            try await h.advance(by: 2.25)
            let state = try await h.waitForRetained("fleetfence/state/q") { message in
                message.flatMap { JSONObject($0.payload) }?.strings("inside") == ["exit-only"]
            }
            let json = try #require(state.flatMap { JSONObject($0.payload) })
            #expect(json.strings("inside") == ["exit-only"])
            #expect(near(json.double("lat"), Geo.north(100).lat, tolerance: 1e-9), "the device's position: \(json)")
            #expect(near(json.double("lon"), Geo.lon, tolerance: 1e-9), "the device's position: \(json)")
            #expect(json.string("at") == rfc3339(T + 12), "t0 + debounce, as with an alert: \(json)")
            #expect(h.alerts("q").isEmpty)
        }
    }
}
