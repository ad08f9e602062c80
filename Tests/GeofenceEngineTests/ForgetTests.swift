import Foundation
import Testing

@testable import GeofenceEngine

/// Forgetting devices silent for long: nothing of them is left, nothing is alerted, their place
/// is reused, and finding them costs nothing per sample.
@Suite("Forgetting devices")
struct ForgetTests {
    @Test func aForgottenDeviceLeavesNoStateAndReturnsAtFirstSight() throws {
        var h = try Harness([circle("depot", radius: 200)])
        try h.engine.setTour(TourDefinition(id: "route", stops: ["depot"]))
        h.feed(driveThrough(startingAt: 420, speed: 10, interval: 5, count: 12), device: "truck-1")
        h.feed([sample(depot, t: T0 + 5)], device: "truck-2")
        #expect(h.engine.insideFences(of: "truck-1") == ["depot"])
        let forgotten = h.engine.forgetDevice("truck-1")
        #expect(forgotten == .init(inside: ["depot"], tours: ["route"]))
        #expect(h.engine.deviceCount == 1 && !h.engine.knows(device: "truck-1"))
        #expect(h.engine.deviceRecord(for: "truck-1") == nil && h.engine.seq(of: "truck-1") == 0)
        #expect(h.engine.forgetDevice("truck-1") == nil)
        // Back: first sight (silent, seq from 1 again), and an old timestamp is no longer stale.
        var out: [Transition] = []
        let outcome = h.engine.process(device: "truck-1", sample: sample(depot, t: T0), arrival: T0 + 1_000, into: &out)
        #expect(outcome.status == .accepted && outcome.firstSight && out.isEmpty)
        #expect(h.engine.insideFences(of: "truck-1") == ["depot"])
        #expect(h.engine.insideFences(of: "truck-2") == ["depot"], "the other device keeps its state")
    }

    @Test func aSlotIsReusedWithNothingOfItsFormerDevice() throws {
        var h = try Harness([circle("depot", radius: 200)])
        h.feed([sample(atBoundary(radius: 200, d: -100), t: T0), sample(depot, t: T0 + 5)], device: "old")
        let handle = h.engine.handle(for: "old")
        h.engine.forgetDevice("old")
        let reused = h.engine.handle(for: "new")
        #expect(reused == handle, "the freed place is given out again")
        #expect(h.engine.deviceRecord(for: "new") == DeviceRecord(
            device: "new", lastTimestamp: nil, anchorTime: nil, anchorLat: nil, anchorLon: nil, seq: 0, knownGeneration: 0,
            lastArrival: nil, regions: []))
        h.tick(T0 + 1_000)
        #expect(h.alerts.isEmpty, "the forgotten pending enter is not confirmed by silence")
    }

    @Test func devicesSilentBeforeACutoff() throws {
        var h = try Harness([circle("depot", radius: 200)])
        h.feed(sample(depot, t: T0), device: "a", arrival: 100)
        h.feed(sample(depot, t: T0), device: "b", arrival: 200)
        h.feed(sample(depot, t: T0 + 1, acc: 500), device: "a", arrival: 300)  // inaccurate, but heard
        _ = h.engine.handle(for: "never")
        #expect(Set(h.engine.devicesSilent(before: 250)) == ["b", "never"])
        #expect(h.engine.lastHeard(of: "a") == 300 && h.engine.lastHeard(of: "never") == nil)
        h.engine.forgetDevice("b")
        #expect(h.engine.devicesSilent(before: 250) == ["never"])
        // The time survives a snapshot.
        let restored = GeofenceEngine(settings: GeofenceSettings(), restoring: h.engine.snapshot())
        #expect(restored.lastHeard(of: "a") == 300)
    }
}
