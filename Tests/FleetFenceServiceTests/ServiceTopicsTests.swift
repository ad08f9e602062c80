import FleetFenceTesting
import Foundation
import Testing

/// The service's topics and payloads, end to end: a real mosquitto, the real `fleetfence serve`.
@Suite("Service end to end: topics and payloads", .timeLimit(.minutes(1)))
struct ServiceTopicsTests {
    static let alertKeys: Set<String> = ["event", "device", "fence", "name", "at", "confirmed_at", "lat", "lon", "radius_m", "seq"]

    @Test func alertTopicQoSRetainAndExactPayload() async throws {
        try await withService { h in
            try await h.position("truck-7", north: 300, ts: T)  // outside (first sight, silent)
            try await h.position("truck-7", north: 100, ts: T + 10)  // inside: crossed at T+5
            try await h.position("truck-7", north: 100, ts: T + 12)  // debounce over: enter
            try await h.position("truck-7", north: 300, ts: T + 20)  // outside: crossed at T+16
            try await h.position("truck-7", north: 300, ts: T + 22.5)  // exit
            let alerts = await h.waitForAlerts("truck-7", count: 2)
            try #require(alerts.count == 2, "\(alerts)")
            let (enter, exit) = (alerts[0], alerts[1])
            let inside = Geo.north(100), outside = Geo.north(300)

            #expect(enter.topic == "fleetfence/alerts/truck-7/depot/enter")
            #expect(enter.message.qos == 1)
            #expect(!enter.message.retain)
            #expect(enter.json.keys == Self.alertKeys)
            #expect(enter.event == "enter")
            #expect(enter.json.string("device") == "truck-7")
            #expect(enter.fence == "depot")
            #expect(enter.json.string("name") == "Depot")
            #expect(near(enter.at, T + 5), "\(enter)")
            #expect(enter.json.string("confirmed_at") == rfc3339(T + 12))
            #expect(enter.json.string("confirmed_at") == "2026-11-25T09:46:52.000Z")
            #expect(near(enter.json.double("lat"), inside.lat, tolerance: 1e-9))
            #expect(near(enter.json.double("lon"), inside.lon, tolerance: 1e-9))
            #expect(enter.json.double("radius_m") == 200)
            #expect(enter.seq == 1)

            #expect(exit.topic == "fleetfence/alerts/truck-7/depot/exit")
            #expect(exit.message.qos == 1)
            #expect(!exit.message.retain)
            #expect(exit.json.keys == Self.alertKeys.union(["duration_s"]))
            #expect(exit.event == "exit")
            #expect(near(exit.at, T + 16), "\(exit)")
            #expect(exit.json.string("confirmed_at") == "2026-11-25T09:47:02.500Z")
            #expect(near(exit.json.double("lat"), outside.lat, tolerance: 1e-9))
            #expect(near(exit.json.double("duration_s"), 11, tolerance: 0.002), "inside from T+5 to T+16")
            #expect(exit.seq == 2)

            for alert in alerts {
                for key in ["at", "confirmed_at"] {
                    #expect(isMillisecondUTC(alert.json.string(key) ?? ""), "\(key) of \(alert)")
                }
            }
        }
    }

    @Test func stateIsRetainedAndPublishedOnChangeOnly() async throws {
        try await withService { h in
            try await h.position("truck-1", north: 300, ts: T)
            try await h.position("truck-1", north: 100, ts: T + 10)
            try await h.position("truck-1", north: 100, ts: T + 12)  // enter
            try await h.position("truck-1", north: 110, ts: T + 14)  // still inside: no state
            try await h.position("truck-1", north: 90, ts: T + 16)
            try await h.position("truck-1", north: 250, ts: T + 18)  // outside, pending: no state yet
            try await h.position("truck-1", north: 100, ts: T + 19)  // back: cancelled, no state
            try await h.barrier()

            var states = h.states("truck-1")
            #expect(states.map { $0.strings("inside") ?? ["?"] } == [[], ["depot"]], "\(states)")
            let entered = try #require(states.last)
            #expect(entered.keys == ["device", "inside", "at", "lat", "lon"])
            #expect(entered.string("device") == "truck-1")
            #expect(entered.string("at") == rfc3339(T + 12))
            #expect(near(entered.double("lat"), Geo.north(100).lat, tolerance: 1e-9))
            #expect(near(entered.double("lon"), Geo.lon, tolerance: 1e-9))

            // A subscriber arriving now gets it, retained.
            let retained = try await h.retained("fleetfence/state/truck-1")
            #expect(retained.count == 1)
            #expect(retained.first?.retain == true)
            #expect(retained.first.flatMap { JSONObject($0.payload) }?.strings("inside") == ["depot"])
            #expect(retained.first?.qos == 1)

            try await h.position("truck-1", north: 300, ts: T + 30)
            try await h.position("truck-1", north: 300, ts: T + 32)  // exit
            try await h.position("truck-1", north: 400, ts: T + 34)
            try await h.barrier()
            states = h.states("truck-1")
            #expect(states.map { $0.strings("inside") ?? ["?"] } == [[], ["depot"], []], "\(states)")
            #expect(states.last?.string("at") == rfc3339(T + 32))
            let later = try await h.retained("fleetfence/state/truck-1")
            #expect(later.first.flatMap { JSONObject($0.payload) }?.strings("inside") == [])
        }
    }

    @Test func fenceRegistryIsRetainedWithEffectiveRadius() async throws {
        let gateCentre = Geo.north(5_000)
        var options = HarnessOptions()
        options.fences = Fences.collection([
            Fences.circle("depot", radius: 200, name: "Depot"),
            Fences.circle("gate", lat: gateCentre.lat, radius: 5, name: "Gate", notify: ["enter"]),
            Fences.circle("wide", lat: 10, lon: 10, radius: 500_000),
        ])
        try await withService(options) { h in
            let registry = try await h.retained("fleetfence/fences/+")
            #expect(Set(registry.map(\.topic)) == ["fleetfence/fences/depot", "fleetfence/fences/gate", "fleetfence/fences/wide"])
            #expect(registry.allSatisfy { $0.retain && $0.qos == 1 }, "\(registry.map { ($0.topic, $0.retain, $0.qos) })")
            let byID = Dictionary(uniqueKeysWithValues: registry.compactMap { m in JSONObject(m.payload).map { (m.topic, $0) } })
            let depot = try #require(byID["fleetfence/fences/depot"])
            #expect(depot.string("id") == "depot")
            #expect(depot.string("name") == "Depot")
            #expect(depot.double("radius") == 200)
            #expect(depot.bool("clamped") != true)
            let gate = try #require(byID["fleetfence/fences/gate"])
            #expect(gate.double("radius") == 20, "clamped up to min_radius_m: \(gate)")
            #expect(gate.bool("clamped") == true)
            #expect(gate.strings("notify") == ["enter"])
            let wide = try #require(byID["fleetfence/fences/wide"])
            #expect(wide.double("radius") == 100_000, "clamped down to max_radius_m: \(wide)")
            #expect(wide.bool("clamped") == true)
            #expect(await h.waitForLog("clamped"), "the clamp is logged")

            // Alerts show the effective radius.
            try await h.position("car", north: 60, ts: T, of: gateCentre)
            try await h.position("car", north: 0, ts: T + 10, of: gateCentre)
            try await h.position("car", north: 0, ts: T + 12, of: gateCentre)
            let alerts = await h.waitForAlerts("car", count: 1)
            #expect(alerts.first?.topic == "fleetfence/alerts/car/gate/enter")
            #expect(alerts.first?.json.double("radius_m") == 20)
        }
    }

    @Test func statusOnlineRetainedThenOfflineAfterSigterm() async throws {
        try await withService(.asProcess) { h in
            let online = try await h.retained("fleetfence/status")
            #expect(online.map(\.text) == ["online"])
            #expect(online.first?.retain == true)
            #expect(online.first?.qos == 1)

            let service = try #require(h.service)
            let status = await service.terminate()
            #expect(status == 0, "SIGTERM stops cleanly with exit code 0")
            let offline = await h.waitForMessages("fleetfence/status", count: 1).last
            #expect(offline?.text == "offline")
            let retained = try await h.retained("fleetfence/status")
            #expect(retained.map(\.text) == ["offline"])
            #expect(retained.first?.retain == true)
            #expect(service.log.contains("stopped"))
        }
    }

    @Test func statusOfflineByLastWillAfterSigkill() async throws {
        try await withService(.asProcess) { h in
            let service = try h.process
            h.collector.clear()
            let status = await service.kill()
            #expect(status == 128 + SIGKILL)
            let will = await h.waitForMessages("fleetfence/status", count: 1).last
            #expect(will?.text == "offline", "the broker publishes the last will")
            let retained = try await h.retained("fleetfence/status")
            #expect(retained.map(\.text) == ["offline"])
            #expect(retained.first?.retain == true)
        }
    }

    @Test func prefixChangesTheRootOfEveryWrittenTopic() async throws {
        var options = HarnessOptions()
        options[.prefix] = "acme/geo"
        try await withService(options) { h in
            let everything = try await h.collector(["#"])
            try await h.publish("acme/geo/fences/yard/set", Fences.circleDefinition(lat: 10, lon: 10, radius: 100))
            try await h.publish("fleetfence/fences/ignored/set", Fences.circleDefinition(lat: 11, lon: 11, radius: 100))
            try await h.position("t1", north: 300, ts: T)
            try await h.position("t1", north: 100, ts: T + 10)
            try await h.position("t1", north: 100, ts: T + 12)
            try await h.publish("fleet/t1/position", "junk")
            try await h.barrier()

            #expect(h.alerts("t1").map(\.topic) == ["acme/geo/alerts/t1/depot/enter"])
            #expect(h.states("t1").last?.strings("inside") == ["depot"])
            #expect(h.messages("acme/geo/state/t1").count == 2)
            #expect(h.errors("t1").count == 1)
            let registry = try await h.retained("acme/geo/fences/+")
            #expect(Set(registry.map(\.topic)) == ["acme/geo/fences/depot", "acme/geo/fences/yard"])
            #expect(try await h.retained("acme/geo/status").map(\.text) == ["online"])
            #expect(try await h.retained("fleetfence/#").isEmpty, "nothing written under the default prefix")

            let status = await h.service?.terminate()
            #expect(status == 0)
            #expect(try await h.retained("acme/geo/status").map(\.text) == ["offline"])
            let written = everything.collected.map(\.topic).filter {
                !$0.hasPrefix("fleet/") && !($0.hasPrefix("acme/geo/fences/") && $0.hasSuffix("/set"))
                    && $0 != "fleetfence/fences/ignored/set"
            }
            #expect(!written.isEmpty)
            #expect(written.allSatisfy { $0.hasPrefix("acme/geo/") }, "\(written)")
            await everything.stop()
        }
    }

    @Test func severalPositionFiltersAndOwnTracks() async throws {
        var options = HarnessOptions()
        options[.positionTopics] = "fleet/+/position,tenants/acme/+/gps,trackers/+/#,owntracks/+/+"
        try await withService(options) { h in
            // Native on the other filters: the device id is the level of the first +.
            for (offset, metres) in [(0.0, 300.0), (10, 100), (12, 100)] {
                try await h.position("v9", north: metres, ts: T + offset, topic: "tenants/acme/v9/gps")
                try await h.position("tk1", north: metres, ts: T + offset, topic: "trackers/tk1/raw/gps")
                try await h.position("truck-2", north: metres, ts: T + offset)
            }
            // OwnTracks: device <user>-<device>, `tst`; other _types are ignored without an error.
            for (offset, metres) in [(0, 300.0), (10, 100), (12, 100)] {
                let point = Geo.north(metres)
                // The `id` field rule (docs/topics-and-payloads.md "Topics and payloads"): an id naming this device is fine.
                try await h.publish(
                    "owntracks/alice/phone",
                    #"{"_type":"location","lat":\#(point.lat),"lon":\#(point.lon),"tst":\#(Int(T) + offset),"acc":5,"tid":"al","id":"alice-phone"}"#)
                try await h.publish("owntracks/alice/phone", #"{"_type":"transition","event":"enter","tst":\#(Int(T) + offset)}"#)
                try await h.publish("owntracks/alice/phone", #"{"_type":"waypoint","desc":"x"}"#)
            }
            try await h.publish("owntracks/alice/phone", #"{"_type":"location","lon":8.6,"tst":1795600100}"#)
            // One naming another device is refused, before it could move alice's phone.
            let away = Geo.north(300)
            try await h.publish(
                "owntracks/alice/phone",
                #"{"_type":"location","lat":\#(away.lat),"lon":\#(away.lon),"tst":\#(Int(T) + 13),"id":"bob-phone"}"#)
            try await h.barrier()

            #expect(h.alerts("v9").map(\.topic) == ["fleetfence/alerts/v9/depot/enter"])
            #expect(h.alerts("tk1").map(\.topic) == ["fleetfence/alerts/tk1/depot/enter"])
            #expect(h.alerts("truck-2").map(\.topic) == ["fleetfence/alerts/truck-2/depot/enter"])
            let own = h.alerts("alice-phone")
            #expect(own.map(\.topic) == ["fleetfence/alerts/alice-phone/depot/enter"])
            #expect(own.first?.json.string("device") == "alice-phone")
            #expect(own.first?.json.string("confirmed_at") == rfc3339(T + 12))
            #expect(near(own.first?.at, T + 5))
            let errors = h.errors("alice-phone").compactMap { JSONObject($0.payload) }
            #expect(errors.count == 2, "the location without lat and the one for bob: \(errors)")
            #expect(errors.first?.string("payload")?.contains(#""lon":8.6"#) == true)
            #expect(errors.last?.string("error")?.contains("bob-phone") == true)
        }
    }

    @Test func homeAssistantSpellings() async throws {
        try await withService { h in
            func ha(_ device: String, _ metres: Double, _ offset: Double, accuracy: Double) async throws {
                let p = Geo.north(metres)
                try await h.publish(
                    "fleet/\(device)/position",
                    #"{"latitude":\#(p.lat),"longitude":\#(p.lon),"gps_accuracy":\#(accuracy),"ts":\#(T + offset)}"#)
            }
            // gps_accuracy 500 is above max_accuracy_m: the sample on the old side says nothing...
            try await ha("ha-1", 300, 0, accuracy: 5)
            try await ha("ha-1", 100, 10, accuracy: 5)
            try await ha("ha-1", 300, 11, accuracy: 500)
            try await ha("ha-1", 100, 12, accuracy: 5)
            // ...while the same sample with a good accuracy cancels the pending enter.
            try await ha("ha-2", 300, 0, accuracy: 5)
            try await ha("ha-2", 100, 10, accuracy: 5)
            try await ha("ha-2", 300, 11, accuracy: 5)
            try await ha("ha-2", 100, 12, accuracy: 5)
            try await h.barrier()

            let alerts = h.alerts("ha-1")
            #expect(alerts.map(\.topic) == ["fleetfence/alerts/ha-1/depot/enter"])
            #expect(near(alerts.first?.at, T + 5))
            #expect(alerts.first?.json.string("confirmed_at") == rfc3339(T + 12))
            #expect(near(alerts.first?.json.double("lat"), Geo.north(100).lat, tolerance: 1e-9))
            #expect(h.alerts("ha-2").isEmpty)
            #expect(h.errors("ha-1").isEmpty && h.errors("ha-2").isEmpty)
        }
    }

    @Test func rfc3339StringTimestamps() async throws {
        try await withService { h in
            for (ts, metres) in [
                ("2026-11-25T09:46:40Z", 300.0),  // T
                ("2026-11-25T11:46:50+02:00", 100),  // T+10, with an offset
                ("2026-11-25T09:46:52.250Z", 100),  // T+12.25
            ] {
                let p = Geo.north(metres)
                try await h.publish("fleet/s1/position", #"{"lat":\#(p.lat),"lon":\#(p.lon),"ts":"\#(ts)"}"#)
            }
            let alerts = await h.waitForAlerts("s1", count: 1)
            #expect(alerts.map(\.topic) == ["fleetfence/alerts/s1/depot/enter"])
            #expect(near(alerts.first?.at, T + 5))
            #expect(alerts.first?.json.string("confirmed_at") == "2026-11-25T09:46:52.250Z")
            #expect(h.errors("s1").isEmpty)
        }
    }

    /// Arrival times come from the service's clock: on a manual one they are exact.
    @Test func absentTimestampMeansArrivalTime() async throws {
        var options = HarnessOptions()
        options.manualClock = true
        try await withService(options) { h in
            let clock = try #require(h.clock)
            let first = clock.now
            try await h.position("a1", north: 300, ts: nil)
            try await h.barrier()
            let state = try #require(h.states("a1").last)
            #expect(state.string("at") == rfc3339(first), "\(state)")

            try await h.advance(by: 1)
            try await h.position("a1", north: 100, ts: nil)  // crossed half-way, at first + 0.5
            try await h.advance(by: 2)  // debounce 2 s, in arrival time
            try await h.position("a1", north: 100, ts: nil)
            try await h.barrier()
            let enter = try #require(h.alerts("a1").first)
            #expect(enter.event == "enter")
            #expect(enter.json.string("confirmed_at") == rfc3339(first + 3), "\(enter)")
            #expect(enter.json.string("at") == rfc3339(first + 0.5), "\(enter)")
        }
    }
}
