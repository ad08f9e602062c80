import FleetFenceService
import FleetFenceTesting
import Foundation
import Testing

/// The fleet rules as the service runs them, topics and payloads included (docs/rules.md "Fleet rules",
/// "Tours", docs/operations.md "Limits and failures"): a real mosquitto, the service in-process.
@Suite("Service: fleet rules and tours", .timeLimit(.minutes(1)))
struct ServiceFleetRulesTests {
    /// Three stops a kilometre apart along the meridian.
    static func stopsFile() -> String {
        Fences.collection([
            Fences.circle("a", lat: Geo.north(0).lat, radius: 100, name: "Dock A"),
            Fences.circle("b", lat: Geo.north(1_000).lat, radius: 100, name: "Dock B"),
            Fences.circle("c", lat: Geo.north(2_000).lat, radius: 100, name: "Dock C"),
        ])
    }

    static func options() -> HarnessOptions {
        var options = HarnessOptions()
        options.fences = stopsFile()
        return options
    }

    @Test func anOrderedTourSkipsCompletesAndKeepsItsProgressRetained() async throws {
        try await withService(Self.options()) { h in
            try await h.publish("fleetfence/tours/route/set", #"{"name":"Morning route","stops":["a","b","c"]}"#)
            let held = try #require(try await h.waitForRetained("fleetfence/tours/route") { $0 != nil })
            #expect(JSONObject(held.payload)?.strings("stops") == ["a", "b", "c"])

            try await h.position("truck-1", north: -500, ts: T)
            try await h.position("truck-1", north: 0, ts: T + 10)
            try await h.position("truck-1", north: 0, ts: T + 12)  // enter a: stop_visited a
            try await h.position("truck-1", north: 2_000, ts: T + 20)
            try await h.position("truck-1", north: 2_000, ts: T + 22)  // enter c: b skipped, c visited, done
            let events = await h.waitForMessages("fleetfence/progress/truck-1/route/+", count: 4)
            #expect(events.map { $0.topic.split(separator: "/").last.map(String.init) } == [
                "stop_visited", "stop_skipped", "stop_visited", "tour_completed",
            ])
            let payloads = events.compactMap { JSONObject($0.payload) }
            #expect(payloads.map { $0.string("stop") } == ["a", "b", "c", "c"])
            #expect(payloads.map { $0.int("stop_index") } == [0, 1, 2, 2])
            #expect(payloads.first?.keys == ["event", "device", "tour", "stop", "stop_index", "at", "seq"])
            #expect(payloads.last?.double("duration_s") != nil)
            // One sequence with the fence alerts: every alert of the device has its own seq.
            try await h.barrier()
            let seqs = (h.alerts("truck-1").compactMap(\.seq) + payloads.compactMap { $0.int("seq") }).sorted()
            #expect(seqs == Array(1...seqs.count), "\(seqs)")

            let progress = try #require(try await h.waitForRetained("fleetfence/progress/truck-1/route") { $0 != nil })
            let report = try #require(JSONObject(progress.payload))
            #expect(report.keys == ["device", "tour", "round", "next_stop", "visited", "skipped"])
            #expect(report.strings("skipped") == ["b"])
            // The history has the tour's events too.
            #expect(h.alerts("truck-1").map(\.event) == ["enter", "exit", "enter"])
        }
    }

    @Test func invalidToursAreAnsweredAndChangeNothing() async throws {
        try await withService(Self.options()) { h in
            try await h.publish("fleetfence/tours/empty/set", #"{"stops":[]}"#)
            try await h.publish("fleetfence/tours/twice/set", #"{"stops":["a","a"]}"#)
            try await h.publish("fleetfence/tours//set", #"{"stops":["a"]}"#)
            let errors = await h.waitForMessages("fleetfence/errors/tours", count: 3)
            #expect(errors.count == 3)
            #expect(errors.allSatisfy { JSONObject($0.payload)?.string("error")?.isEmpty == false })
            #expect(try await h.retained("fleetfence/tours/+").isEmpty)
        }
    }

    @Test func aTourDeletedClearsItsRetainedTourAndProgress() async throws {
        try await withService(Self.options()) { h in
            try await h.publish("fleetfence/tours/route/set", #"{"stops":["a","b"]}"#)
            try await h.position("t", north: -500, ts: T)
            try await h.position("t", north: 0, ts: T + 10)
            try await h.position("t", north: 0, ts: T + 12)
            _ = await h.waitForMessages("fleetfence/progress/t/route/stop_visited")
            try await h.publish("fleetfence/tours/route/set", [UInt8]())
            try await h.barrier()
            #expect(try await h.retained("fleetfence/tours/route").isEmpty)
            #expect(try await h.retained("fleetfence/progress/t/route").isEmpty)
        }
    }

    @Test func anExpiringFenceExitsTheDevicesInside() async throws {
        try await withService(Self.options()) { h in
            let expiry = Date().timeIntervalSince1970 + 2
            try await h.publish(
                "fleetfence/fences/site/set",
                Fences.json(["lat": Geo.lat, "lon": Geo.lon, "radius": 300, "expires_at": rfc3339(expiry)]))
            try await h.position("crane", north: 0, ts: T)  // first sight inside site
            let exit = try #require(await h.waitForAlerts("crane", count: 1, timeout: .seconds(10)).first)
            #expect(exit.event == "exit")
            #expect(exit.fence == "site")
            #expect(exit.json.string("reason") == "fence_expired")
            #expect(try await h.waitForRetained("fleetfence/fences/site") { $0 == nil } == nil)
        }
    }

    @Test func aReplaceThatNoLongerMatchesADeviceInsideExitsIt() async throws {
        try await withService(Self.options()) { h in
            try await h.publish(
                "fleetfence/fences/yard/set", Fences.json(["lat": Geo.lat, "lon": Geo.lon, "radius": 300, "devices": ["truck-*"]]))
            try await h.position("truck-1", north: 0, ts: T)
            try await h.position("van-1", north: 0, ts: T)
            try await h.barrier()
            #expect(h.states("van-1").last?.strings("inside")?.contains("yard") == false)
            #expect(h.states("truck-1").last?.strings("inside")?.contains("yard") == true)
            try await h.publish(
                "fleetfence/fences/yard/set", Fences.json(["lat": Geo.lat, "lon": Geo.lon, "radius": 300, "devices": ["van-*"]]))
            let exit = try #require(await h.waitForAlerts("truck-1", count: 1).first)
            #expect(exit.event == "exit" && exit.json.string("reason") == "unassigned", "\(exit)")
        }
    }

    @Test func speedingInsideALimitedFenceIsAlertedOncePerEpisode() async throws {
        var options = Self.options()
        options.fences = Fences.collection([])
        try await withService(options) { h in
            try await h.publish(
                "fleetfence/fences/school/set",
                Fences.json(["lat": Geo.lat, "lon": Geo.lon, "radius": 300, "speed_limit_kmh": 30]))
            func drive(_ ts: Double, _ speed: Double?) async throws {
                let point = Geo.north(0)
                var object: [String: Any] = ["lat": point.lat, "lon": point.lon, "ts": ts]
                if let speed { object["spd"] = speed }
                try await h.publish("fleet/bus-1/position", Fences.json(object))
            }
            try await drive(T, 5)  // first sight inside, under the limit
            for step in 1...4 { try await drive(T + Double(step), 15) }  // 54 km/h for 3 s > debounce 2 s
            try await drive(T + 5, nil)  // says nothing
            for step in 6...9 { try await drive(T + Double(step), 16) }  // same episode: no second alert
            let speeding = await h.waitForMessages("fleetfence/alerts/bus-1/school/speeding")
            try await h.barrier()
            #expect(h.messages("fleetfence/alerts/bus-1/school/speeding").count == 1)
            let alert = try #require(speeding.first.flatMap { JSONObject($0.payload) })
            #expect(alert.double("limit_kmh") == 30)
            #expect((alert.double("max_speed_kmh") ?? 0) >= 54)
            #expect(alert.time("at") == T + 1)
        }
    }

    @Test func aForgottenDeviceLeavesNothingRetainedAndIsFirstSightAgain() async throws {
        try await withService(Self.options()) { h in
            try await h.position("gone", north: 0, ts: T)
            #expect(try await h.waitForRetained("fleetfence/state/gone") { $0 != nil } != nil)
            try await h.publish("fleetfence/devices/gone/forget", [UInt8]())
            #expect(try await h.waitForRetained("fleetfence/state/gone") { $0 == nil } == nil)
            // Back: first sight, so silent, with its state published anew.
            try await h.position("gone", north: 0, ts: T + 100)
            #expect(try await h.waitForRetained("fleetfence/state/gone") { $0 != nil } != nil)
            #expect(h.alerts("gone").isEmpty)
        }
    }

    @Test func devicesSilentForForgetAfterAreForgotten() async throws {
        var options = Self.options()
        options[.forgetAfter] = "1"
        options.manualClock = true
        try await withService(options) { h in
            try await h.position("quiet", north: 0, ts: T)
            #expect(try await h.retained("fleetfence/state/quiet").count == 1)
            try await h.advance(by: 0.75)
            #expect(try await h.retained("fleetfence/state/quiet").count == 1, "not before forget_after_s")
            try await h.advance(by: 1)
            #expect(try await h.retained("fleetfence/state/quiet").isEmpty)
        }
    }
}

/// What a hostile publisher tried (docs/operations.md "Limits and failures").
@Suite("Service: limits", .timeLimit(.minutes(1)))
struct ServiceLimitsTests {
    @Test func aSampleFromTheFutureIsRefusedAndDoesNotSilenceTheDevice() async throws {
        try await withService { h in
            let now = Date().timeIntervalSince1970
            try await h.position("truck-7", north: 300, ts: now + 1e5)
            try await h.position("truck-7", north: 300, ts: now)
            let errors = await h.waitForMessages("fleetfence/errors/truck-7")
            #expect(JSONObject(try #require(errors.first).payload)?.string("error")?.contains("ahead of its arrival") == true)
            try await h.position("truck-7", north: 100, ts: now + 1)
            try await h.position("truck-7", north: 100, ts: now + 3.5)
            #expect(await h.waitForAlerts("truck-7", count: 1).first?.event == "enter")
        }
    }

    @Test func idsThatDifferInBytesAreTwoDevices() async throws {
        try await withService { h in
            let composed = "Bus-M\u{00FC}ller"  // NFC
            let decomposed = "Bus-Mu\u{0308}ller"  // NFD: equal as Swift Strings, not as bytes
            #expect(composed == decomposed)
            try await h.position(composed, north: 100, ts: T)  // inside
            try await h.position(decomposed, north: 300, ts: T)  // outside
            try await h.barrier()
            let inside = try #require(try await h.waitForRetained("fleetfence/state/\(composed)") { $0 != nil })
            let outside = try #require(try await h.waitForRetained("fleetfence/state/\(decomposed)") { $0 != nil })
            #expect(JSONObject(inside.payload)?.strings("inside") == ["depot"])
            #expect(JSONObject(outside.payload)?.strings("inside") == [])
            // Outside for longer than the debounce: the decomposed one, outside from the start,
            // has nothing to alert; the composed one, inside until now, exits, alone.
            try await h.position(decomposed, north: 300, ts: T + 10)
            try await h.position(decomposed, north: 300, ts: T + 13)
            try await h.barrier()
            #expect(h.alerts().isEmpty)
            try await h.position(composed, north: 300, ts: T + 10)
            try await h.position(composed, north: 300, ts: T + 13)
            let exits = await h.waitForAlerts(composed, count: 1)
            #expect(exits.map(\.event) == ["exit"])
            try await h.barrier()
            // By bytes: String equality would not tell the two spellings apart.
            #expect(h.alerts().map { Array($0.topic.utf8) } == [Array("fleetfence/alerts/\(composed)/depot/exit".utf8)], "\(h.alerts())")
        }
    }

    @Test func fenceIDsThatDifferInBytesAreTwoFencesAcrossARestart() async throws {
        try await withService { h in
            let composed = "M\u{00FC}hle", decomposed = "Mu\u{0308}hle"
            try await h.publish("fleetfence/fences/\(composed)/set", Fences.circleDefinition(radius: 50, name: "one"))
            try await h.publish("fleetfence/fences/\(decomposed)/set", Fences.circleDefinition(radius: 80, name: "two"))
            try await h.barrier()
            await h.service?.terminate()
            try await h.startService()
            // Both came back from the journal, each with its own definition.
            guard case let .inProcess(service)? = h.service else { throw TestError("in-process expected") }
            let held = service.service.readModel.fences.compactMap(\.name)
            #expect(Set(held) == ["one", "two", "Depot"], "\(held)")
        }
    }

    @Test func anIdLongerThan256BytesIsRefused() async throws {
        try await withService { h in
            let long = String(repeating: "x", count: 300)
            try await h.position(long, north: 100, ts: T)
            let errors = await h.waitForMessages("fleetfence/errors/")
            #expect(JSONObject(try #require(errors.first).payload)?.string("error")?.contains("256") == true)
            try await h.publish("fleetfence/fences/\(long)/set", Fences.circleDefinition(radius: 50))
            #expect(await h.waitForMessages("fleetfence/errors/fences").isEmpty == false)
        }
    }

    @Test func anEmptyFenceIDIsAnswered() async throws {
        try await withService { h in
            try await h.publish("fleetfence/fences//set", Fences.circleDefinition(radius: 50))
            let errors = await h.waitForMessages("fleetfence/errors/fences")
            #expect(JSONObject(try #require(errors.first).payload)?.string("error")?.contains("empty") == true)
        }
    }
}
