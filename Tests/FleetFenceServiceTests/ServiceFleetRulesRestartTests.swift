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
            let names = h.messages("fleetfence/progress/truck-1/route/+").map { String($0.topic.split(separator: "/").last!) }
            #expect(names == ["stop_visited", "stop_visited", "tour_completed"], "\(events)")
            let seqs = h.messages("fleetfence/progress/truck-1/route/+").compactMap { JSONObject($0.payload)?.int("seq") }
            #expect(Set(seqs).count == seqs.count, "no seq twice: \(seqs)")
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
