import FleetFenceTesting
import Foundation
import Testing

/// Tours and expiry across restarts, kill -9 included (docs/rules.md "Tours", docs/operations.md "Journal"): no stop
/// visited twice, no completion lost.
@Suite("Service end to end: tours and expiry across restarts", .timeLimit(.minutes(1)))
struct ServiceFleetRulesRestartTests {
    @Test func tourProgressSurvivesAKill() async throws {
        var options = HarnessOptions.asProcess
        options.fences = ServiceFleetRulesTests.stopsFile()
        try await withService(options) { h in
            try await h.publish("fleetfence/tours/route/set", #"{"stops":["a","b"]}"#)
            try await h.position("truck-1", north: -500, ts: T)
            try await h.position("truck-1", north: 0, ts: T + 10)
            try await h.position("truck-1", north: 0, ts: T + 12)
            _ = await h.waitForMessages("fleetfence/progress/truck-1/route/stop_visited")
            #expect(await h.service?.process?.kill() == 128 + SIGKILL)
            try await h.startService()
            // The tour came back from the journal; a visits it again: nothing; b completes it.
            try await h.position("truck-1", north: 1_000, ts: T + 20)
            try await h.position("truck-1", north: 1_000, ts: T + 22)
            let events = await h.waitForMessages("fleetfence/progress/truck-1/route/+", count: 3)
            try await h.barrier()
            // A kill may come before the broker's acknowledgement of a is journaled: the restart then
            // sends it again, the same message (docs/reliability.md "What is promised"), which a
            // receiver drops by its seq. No seq names two events.
            var bySeq: [Int: [UInt8]] = [:]
            var names: [String] = []
            for message in h.messages("fleetfence/progress/truck-1/route/+") {
                let seq = try #require(JSONObject(message.payload)?.int("seq"))
                if let earlier = bySeq[seq] {
                    #expect(earlier == message.payload, "seq \(seq) twice, different: \(events)")
                    continue
                }
                bySeq[seq] = message.payload
                names.append(String(message.topic.split(separator: "/").last!))
            }
            #expect(names == ["stop_visited", "stop_visited", "tour_completed"], "\(events)")
        }
    }

    @Test func aFenceThatExpiredWhileDownExitsItsDevicesAtRestart() async throws {
        var options = HarnessOptions.asProcess
        options.fences = Fences.collection([])
        try await withService(options) { h in
            let expiry = Date().timeIntervalSince1970 + 4
            try await h.publish(
                "fleetfence/fences/site/set",
                Fences.json(["lat": Geo.lat, "lon": Geo.lon, "radius": 300, "expires_at": rfc3339(expiry)]))
            try await h.position("crane", north: 0, ts: T)
            try await h.barrier()
            #expect(await h.service?.terminate() == 0)
            try await Task.sleep(for: .seconds(max(0, expiry - Date().timeIntervalSince1970) + 0.5))
            try await h.startService()
            let exit = try #require(await h.waitForAlerts("crane", count: 1).first)
            #expect(exit.json.string("reason") == "fence_expired")
        }
    }
}
