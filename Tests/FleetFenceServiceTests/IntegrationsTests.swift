import FleetFenceCodecs
import FleetFenceService
import FleetFenceTesting
import Foundation
import Testing

/// Home Assistant discovery and OwnTracks transitions against a real mosquitto (docs/integrations.md "Home
/// Assistant", "OwnTracks"). The expected keys are written from the two projects' documentation,
/// not from the service's code.
@Suite("Integrations: Home Assistant and OwnTracks", .timeLimit(.minutes(1)))
struct IntegrationsTests {
    /// Home Assistant's MQTT device tracker, as its documentation lists the configuration keys
    /// FleetFence sets.
    static let discoveryKeys: Set<String> = [
        "name", "unique_id", "object_id", "state_topic", "json_attributes_topic", "availability_topic",
        "payload_available", "payload_not_available", "payload_not_home", "source_type", "qos", "device",
    ]

    static func homeAssistantOptions() -> HarnessOptions {
        var options = HarnessOptions()
        options[.homeAssistant] = "true"
        options.extraFilters = ["homeassistant/#"]
        return options
    }

    @Test func discoveryOnFirstSightThenStateAndAttributesOnChange() async throws {
        try await withService(Self.homeAssistantOptions()) { h in
            try await h.position("truck-7", north: 300, ts: T, acc: 6)
            let config = try #require(await h.waitForMessages("homeassistant/device_tracker/fleetfence_truck-7/config").first)
            #expect(config.qos == 1)
            // Retained: what a Home Assistant that starts later finds.
            #expect(try await h.waitForRetained("homeassistant/device_tracker/fleetfence_truck-7/config") { $0 != nil }?.payload == config.payload)
            let discovery = try #require(JSONObject(config.payload))
            #expect(discovery.keys == Self.discoveryKeys, "\(discovery)")
            #expect(discovery.string("unique_id") == "fleetfence_truck-7")
            #expect(discovery.string("state_topic") == "fleetfence/ha/truck-7/state")
            #expect(discovery.string("json_attributes_topic") == "fleetfence/ha/truck-7/attributes")
            #expect(discovery.string("availability_topic") == "fleetfence/status")
            #expect(discovery.string("payload_available") == "online")
            #expect(discovery.string("payload_not_available") == "offline")
            #expect(discovery.string("source_type") == "gps")
            let device = try #require(discovery.object["device"] as? [String: Any])
            #expect(device["identifiers"] as? [String] == ["fleetfence_truck-7"])
            #expect(device["manufacturer"] as? String == "FleetFence")
            #expect(device["name"] as? String == "truck-7")

            // First sight outside: not_home, with its position.
            #expect(await h.waitForMessages("fleetfence/ha/truck-7/state").map(\.text) == ["not_home"])
            let firstAttributes = try #require(await h.waitForMessages("fleetfence/ha/truck-7/attributes").first)
            let attributes = try #require(JSONObject(firstAttributes.payload))
            #expect(attributes.keys == ["latitude", "longitude", "gps_accuracy", "inside"])
            #expect(attributes.double("gps_accuracy") == 6)
            #expect(attributes.strings("inside") == [])

            // Entering the depot: its name.
            try await h.position("truck-7", north: 100, ts: T + 10)
            try await h.position("truck-7", north: 100, ts: T + 12)
            #expect(await h.waitForMessages("fleetfence/ha/truck-7/state", count: 2).map(\.text) == ["not_home", "Depot"])
            try await h.barrier()
            #expect(try await h.waitForRetained("fleetfence/ha/truck-7/state") { $0?.text == "Depot" }?.text == "Depot")
            let latest = try #require(h.messages("fleetfence/ha/truck-7/attributes").last.flatMap { JSONObject($0.payload) })
            #expect(latest.strings("inside") == ["depot"])
            // One discovery per device, however many samples.
            #expect(h.messages("homeassistant/device_tracker/fleetfence_truck-7/config").count == 1)

            // Deleting the fence moves the state back; the attributes keep the last fix's accuracy.
            try await h.position("truck-7", north: 100, ts: T + 14, acc: 9)
            try await h.barrier()
            // Its position goes to Home Assistant within 5 s; the exit then has no sample of its own.
            let seen = h.messages("fleetfence/ha/truck-7/attributes").count
            let flushed = await h.waitForMessages("fleetfence/ha/truck-7/attributes", count: seen + 1)
            #expect(flushed.last.flatMap { JSONObject($0.payload) }?.double("gps_accuracy") == 9)
            try await h.publish("fleetfence/fences/depot/set", [UInt8]())
            #expect(await h.waitForMessages("fleetfence/ha/truck-7/state", count: 3).map(\.text).last == "not_home")
            try await h.barrier()
            let afterRemoval = try #require(h.messages("fleetfence/ha/truck-7/attributes").last.flatMap { JSONObject($0.payload) })
            #expect(afterRemoval.strings("inside") == [] && afterRemoval.double("gps_accuracy") == 9)
        }
    }

    /// A backlog whose merge went in and out of the depot shows the device's state again, at its
    /// newest fix (docs/rules.md "Late samples"); the set is as it was, so Home Assistant, which
    /// mirrors the set, hears nothing of it. Merged by the tick (the newer fix joined a backlog
    /// with a hole), or by the newer fix itself (the backlog filled its gap).
    @Test(arguments: [false, true])
    func aStateShownAgainAfterAMergedVisitLeavesHomeAssistantAlone(filled: Bool) async throws {
        var options = Self.homeAssistantOptions()
        options.manualClock = true
        try await withService(options) { h in
            let visit = ServiceLateSamplesTests.visit
            let live = visit.count - (filled ? 2 : 1)
            try await h.position("truck-9", north: visit[0].north, ts: visit[0].ts)
            try await h.position("truck-9", north: visit[live].north, ts: visit[live].ts)
            for sample in visit[1..<live] { try await h.position("truck-9", north: sample.north, ts: sample.ts) }
            try await h.position("truck-9", north: 900, ts: visit[live].ts + 5)
            // The joined fix waits for the upload's end: 5 s without a late fix, on the service's clock.
            if !filled {
                try await h.barrier()
                try await h.advance(by: 6)
            }
            #expect(await h.waitForAlerts("truck-9", count: 2).map(\.event) == ["enter", "exit"])
            try await h.barrier()
            #expect(h.messages("fleetfence/state/truck-9").count == 2, "first sight, and again after the merge")
            #expect(h.messages("fleetfence/ha/truck-9/state").map(\.text) == ["not_home"])
        }
    }

    /// Devices seen before discovery was on (or under another prefix) have had their first sight:
    /// the start that switches it on publishes their configs, states and attributes; the next start
    /// does not again, and a new prefix moves them (the old configs emptied).
    @Test func devicesSeenBeforeDiscoveryWasOnAreDiscoveredAtTheStartThatTurnsItOn() async throws {
        var options = HarnessOptions()
        options.extraFilters = ["homeassistant/#", "ha2/#"]
        try await withService(options) { h in
            try await h.position("truck-1", north: 300, ts: T, acc: 6)
            try await h.position("truck-2", north: 0, ts: T)
            try await h.barrier()
            #expect(h.messages("homeassistant/device_tracker/+/config").isEmpty)
            await h.service?.terminate()

            try await h.startService { $0[.homeAssistant] = "true" }
            for device in ["truck-1", "truck-2"] {
                let config = try #require(await h.waitForRetained("homeassistant/device_tracker/fleetfence_\(device)/config") { $0 != nil })
                #expect(JSONObject(config.payload)?.string("state_topic") == "fleetfence/ha/\(device)/state")
            }
            #expect(try await h.waitForRetained("fleetfence/ha/truck-1/state") { $0 != nil }?.text == "not_home")
            #expect(try await h.waitForRetained("fleetfence/ha/truck-2/state") { $0 != nil }?.text == "Depot")
            let attributes = try #require(await h.waitForRetained("fleetfence/ha/truck-1/attributes") { $0 != nil })
            #expect(JSONObject(attributes.payload)?.strings("inside") == [])
            // Journaled once acknowledged: a start with the same prefix sends them no more.
            #expect(await h.waitForLog("Home Assistant discovery journaled"))
            await h.service?.terminate()
            try await h.startService { $0[.homeAssistant] = "true" }
            try await h.position("truck-1", north: 300, ts: T + 10)
            try await h.barrier()
            #expect(h.messages("homeassistant/device_tracker/fleetfence_truck-1/config").count == 1)

            // Off for a while: a device seen meanwhile has no config. On again under another prefix:
            // every device gets one there, and those under the first prefix go.
            await h.service?.terminate()
            try await h.startService()
            try await h.position("truck-3", north: 300, ts: T)
            try await h.barrier()
            await h.service?.terminate()
            try await h.startService {
                $0[.homeAssistant] = "true"
                $0[.homeAssistantPrefix] = "ha2"
            }
            for device in ["truck-1", "truck-2", "truck-3"] {
                #expect(try await h.waitForRetained("ha2/device_tracker/fleetfence_\(device)/config") { $0 != nil } != nil)
            }
            #expect(try await h.waitForRetained("homeassistant/device_tracker/fleetfence_truck-2/config") { $0 == nil } == nil)
        }
    }

    @Test func availabilityFollowsTheServiceStatus() async throws {
        try await withService(Self.homeAssistantOptions()) { h in
            try await h.position("van-1", north: 300, ts: T)
            let config = try #require(await h.waitForMessages("homeassistant/device_tracker/fleetfence_van-1/config").first)
            let topic = try #require(JSONObject(config.payload)?.string("availability_topic"))
            #expect(try await h.waitForRetained(topic) { $0?.text == "online" }?.text == "online")
            await h.service?.terminate()
            #expect(try await h.waitForRetained(topic) { $0?.text == "offline" }?.text == "offline")
        }
    }

    @Test func idsHomeAssistantCannotTakeKeepDistinctObjectIDs() {
        let a = HomeAssistantPayload.objectID(device: "Bus-Müller")
        let b = HomeAssistantPayload.objectID(device: "Bus-Mu\u{308}ller")
        #expect(a != b)
        // docs/integrations.md's example.
        #expect(a == "fleetfence_Bus-M__ller_71bb205b")
        #expect(a.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        #expect(HomeAssistantPayload.objectID(device: "truck-7") == "fleetfence_truck-7")
    }

    /// OwnTracks' JSON for a transition: `_type`, `event` enter/leave, `tst`, `wtst`, `lat`, `lon`,
    /// `acc`, `desc`, `t`.
    @Test func ownTracksDevicesGetTheirTransitionsOnTheirEventTopic() async throws {
        var options = HarnessOptions()
        options[.positionTopics] = "fleet/+/position,owntracks/+/+"
        options.extraFilters = ["owntracks/#"]
        try await withService(options) { h in
            func report(_ metres: Double, _ ts: Double) async throws {
                let point = Geo.north(metres)
                try await h.publish(
                    "owntracks/anna/phone",
                    Fences.json(["_type": "location", "lat": point.lat, "lon": point.lon, "tst": ts, "acc": 7]))
            }
            try await report(300, T)
            try await report(100, T + 10)
            try await report(100, T + 12)
            try await report(300, T + 20)
            try await report(300, T + 23)
            let events = await h.waitForMessages("owntracks/anna/phone/event", count: 2)
            try #require(events.count == 2, "\(events)")
            let enter = try #require(JSONObject(events[0].payload))
            #expect(enter.keys == ["_type", "event", "desc", "tst", "wtst", "lat", "lon", "acc", "t"])
            #expect(enter.string("_type") == "transition")
            #expect(enter.string("event") == "enter")
            #expect(enter.string("desc") == "Depot")
            #expect(enter.string("t") == "c")
            #expect(enter.double("acc") == 7)
            #expect(enter.int("tst") == Int(T + 5))
            let leave = try #require(JSONObject(events[1].payload))
            #expect(leave.string("event") == "leave")
            // The same fence, the same waypoint.
            #expect(leave.int("wtst") == enter.int("wtst"))
            // FNV-1a 32-bit of "depot" (docs/integrations.md "OwnTracks"), worked out apart from the code.
            #expect(enter.int("wtst") == 346_954_269)
            #expect(!events[0].retain && events[0].qos == 1)
            // Its alerts are the service's as usual, under the OwnTracks device id.
            #expect(h.alerts("anna-phone").map(\.event) == ["enter", "exit"])

            // An exit of a fence deleted has no sample of its own: its accuracy is the last fix's.
            try await report(100, T + 30)
            try await report(100, T + 52)
            _ = await h.waitForMessages("owntracks/anna/phone/event", count: 3)
            try await h.publish("fleetfence/fences/depot/set", [UInt8]())
            let removed = await h.waitForMessages("owntracks/anna/phone/event", count: 4)
            try #require(removed.count == 4, "\(removed)")
            let gone = try #require(JSONObject(removed[3].payload))
            #expect(gone.string("event") == "leave" && gone.double("acc") == 7)
        }
    }

    /// The phone's topic is journaled: after a restart, an exit a fence change makes reaches it
    /// before it reports again (it went nowhere: the topic was known only from its reports).
    @Test func ownTracksTransitionsReachAPhoneAfterARestartBeforeItReports() async throws {
        var options = HarnessOptions()
        options[.positionTopics] = "fleet/+/position,owntracks/+/+"
        options.extraFilters = ["owntracks/#"]
        try await withService(options) { h in
            for (metres, ts) in [(300.0, T), (100, T + 10), (100, T + 12)] {
                let point = Geo.north(metres)
                try await h.publish(
                    "owntracks/bob/pixel",
                    Fences.json(["_type": "location", "lat": point.lat, "lon": point.lon, "tst": ts, "acc": 6]))
            }
            _ = await h.waitForMessages("owntracks/bob/pixel/event", count: 1)
            try await h.barrier()
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            try await h.publish("fleetfence/fences/depot/set", [UInt8]())
            let events = await h.waitForMessages("owntracks/bob/pixel/event", count: 2)
            try #require(events.count == 2, "\(events)")
            #expect(JSONObject(events[1].payload)?.string("event") == "leave")
        }
    }

    @Test func ownTracksTransitionsCanBeTurnedOff() async throws {
        var options = HarnessOptions()
        options[.positionTopics] = "fleet/+/position,owntracks/+/+"
        options.extraFilters = ["owntracks/#"]
        options[.ownTracksTransitions] = "false"
        try await withService(options) { h in
            for (metres, ts) in [(300.0, T), (100, T + 10), (100, T + 12)] {
                let point = Geo.north(metres)
                try await h.publish(
                    "owntracks/anna/phone", Fences.json(["_type": "location", "lat": point.lat, "lon": point.lon, "tst": ts]))
            }
            #expect(await h.waitForAlerts("anna-phone", count: 1).count == 1)
            try await h.barrier()
            #expect(h.messages("owntracks/anna/phone/event").isEmpty)
        }
    }
    @Test func anOwnTracksPhoneOverTheLimitIsAlertedSpeeding() async throws {
        var options = HarnessOptions()
        options[.positionTopics] = "fleet/+/position,owntracks/+/+"
        options.fences = Fences.collection([])
        try await withService(options) { h in
            try await h.publish(
                "fleetfence/fences/school/set", Fences.json(["lat": Geo.lat, "lon": Geo.lon, "radius": 300, "speed_limit_kmh": 30]))
            // OwnTracks' vel is whole km/h: 54 for 3 s, past the 2 s debounce.
            for (step, vel) in [(0, 10), (1, 54), (2, 54), (3, 54), (4, 54)] {
                let point = Geo.north(0)
                try await h.publish(
                    "owntracks/anna/phone",
                    Fences.json(["_type": "location", "lat": point.lat, "lon": point.lon, "tst": T + Double(step), "vel": vel]))
            }
            let speeding = await h.waitForMessages("fleetfence/alerts/anna-phone/school/speeding")
            let alert = try #require(speeding.first.flatMap { JSONObject($0.payload) })
            #expect(alert.double("max_speed_kmh").map { abs($0 - 54) < 1e-9 } == true, "\(alert)")
            #expect(alert.time("at") == T + 1)
        }
    }
}
