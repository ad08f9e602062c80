import Foundation
import Testing

@testable import GeofenceEngine

/// Fences set, replaced and removed at run time while devices are at them.
@Suite("Fence lifecycle")
struct FenceLifecycleTests {
    /// A device that entered "f" (200 m at the depot) with an alert, parked at the centre.
    func insideByEnter() throws -> Harness {
        var h = try Harness([circle("f", radius: 200)])
        h.feed(eastWest(stride(from: -420.0, through: -20, by: 50).map { $0 } + [0, 0, 0]))
        #expect(events(h.alerts) == ["enter f"])
        return h
    }

    @Test func fenceReplacedWithTheSameIDWhileInsideKeepsStateAndDoesNotReEnter() throws {
        var h = try insideByEnter()
        let replacement = circle("f", radius: 250, name: "bigger")
        let update = try h.engine.setFence(replacement)
        #expect(update.replaced && !update.unchanged)
        #expect(h.engine.fenceCount == 1)
        #expect(h.engine.state(of: "truck-7", in: "f") == .inside)
        let again = try h.engine.setFence(replacement)
        #expect(again.replaced && again.unchanged)
        h.feed(eastWest(Array(repeating: 0, count: 30), from: T0 + 100))
        #expect(events(h.alerts) == ["enter f"])
        // The new shape is the one judged: leave through 250 m.
        h.feed(eastWest(stride(from: 0.0, through: 600, by: 50).map { $0 }, from: T0 + 300))
        #expect(events(h.alerts) == ["enter f", "exit f"])
        #expect(h.alerts[1].radiusMeters == 250)
        #expect(h.alerts[1].fenceName == "bigger")
        #expect(abs(h.alerts[1].at - (T0 + 300 + 25)) < 1e-2)  // 250 m reached exactly halfway
    }

    @Test func fenceReplacedByAFarAwayShapeExitsAfterDebounce() throws {
        var h = try insideByEnter()
        let enteredAt = h.alerts[0].at
        try h.engine.setFence(circle("f", at: destination(depot, bearing: 0, meters: 10_000), radius: 200))
        #expect(h.engine.state(of: "truck-7", in: "f") == .inside)
        // Still parked at the depot, which is now 9.8 km outside.
        let parked = eastWest(Array(repeating: 0, count: 6), from: T0 + 100)
        #expect(h.feed(Array(parked[0...3])).isEmpty)  // +100 ... +115
        let exit = try #require(h.feed([parked[4]]).first)
        #expect(exit.event == .exit)
        #expect(exit.confirmedAt == T0 + 120)
        #expect(exit.reason == nil)
        // No sample was ever inside the new shape: the crossing is put at the first outside sample.
        #expect(exit.at == T0 + 100)
        #expect(exit.durationSeconds == exit.at - enteredAt)
        #expect(h.engine.state(of: "truck-7", in: "f") == .outside)
    }

    @Test func fenceRemovedWhileInsideExitsWithReasonFenceRemoved() throws {
        var h = try insideByEnter()
        let enter = h.alerts[0]
        let lastSample = eastWest([0], from: T0 + 50)[0]
        h.feed([lastSample])
        let removal = h.engine.removeFence(id: "f", now: T0 + 90)
        #expect(removal.changedDevices == ["truck-7"])
        let exit = try #require(removal.transitions.first)
        #expect(removal.transitions.count == 1)
        #expect(exit.event == .exit)
        #expect(exit.reason == "fence_removed")
        #expect(exit.device == "truck-7")
        #expect(exit.fenceID == "f")
        #expect(exit.at == T0 + 90 && exit.confirmedAt == T0 + 90)
        #expect(exit.durationSeconds == T0 + 90 - enter.at)
        #expect(exit.lat == lastSample.lat && exit.lon == lastSample.lon)
        #expect(exit.radiusMeters == 200)
        #expect(exit.seq == 2)
        #expect(h.engine.seq(of: "truck-7") == 2)
        #expect(h.engine.fenceCount == 0)
        #expect(h.engine.insideFences(of: "truck-7").isEmpty)
        #expect(h.engine.fencesNear(lat: depot.lat, lon: depot.lon).isEmpty)
        // Nothing more from it.
        h.feed(eastWest(stride(from: 0.0, through: 600, by: 50).map { $0 }, from: T0 + 100))
        #expect(events(h.alerts) == ["enter f"])
    }

    /// A reloaded file may drop many fences at once: one call, one pass over the devices, the
    /// same exits as removing them one by one, one state change per device.
    @Test func fencesRemovedTogetherExitEachDeviceOnceFromEach() throws {
        let fences = [circle("a", radius: 200), circle("b", radius: 300), circle("c", radius: 400), circle("d", radius: 500)]
        var together = try Harness(fences)
        var oneByOne = try Harness(fences)
        for device in ["truck-1", "truck-2"] {
            together.feed([sample(depot, t: T0)], device: device)
            oneByOne.feed([sample(depot, t: T0)], device: device)
        }
        let removal = together.engine.removeFences(ids: ["c", "a", "b", "nope"], now: T0 + 60)
        var separate: [Transition] = []
        for id in ["c", "a", "b"] { separate += oneByOne.engine.removeFence(id: id, now: T0 + 60).transitions }

        #expect(removal.changedDevices == ["truck-1", "truck-2"])
        #expect(Set(removal.transitions.map { "\($0.device) \($0.fenceID) \($0.reason ?? "")" })
            == Set(separate.map { "\($0.device) \($0.fenceID) \($0.reason ?? "")" }))
        #expect(removal.transitions.count == 6)
        #expect(together.engine.fenceCount == 1)
        for device in ["truck-1", "truck-2"] {
            #expect(together.engine.insideFences(of: device) == ["d"])
            #expect(together.engine.seq(of: device) == oneByOne.engine.seq(of: device))
        }
        #expect(together.engine.fencesNear(lat: depot.lat, lon: depot.lon) == ["d"])
        // Their slots are free for new fences, which start unknown for every device.
        try together.engine.setFence(circle("e", radius: 200))
        #expect(together.engine.state(of: "truck-1", in: "e") != .inside)
    }

    @Test func fenceRemovedWhileFirstSightInsideAlsoExits() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed([sample(depot, t: T0)])
        let removal = h.engine.removeFence(id: "f", now: T0 + 30)
        #expect(events(removal.transitions) == ["exit f"])
        #expect(removal.transitions.first?.reason == "fence_removed")
        #expect(removal.transitions.first?.seq == 1)
    }

    @Test func fenceRemovedWhilePendingEnterGivesNothing() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed(eastWest(stride(from: -420.0, through: -70, by: 50).map { $0 }))  // t0 at -170, not yet confirmed
        #expect(h.engine.pendingChange(of: "truck-7", in: "f") != nil)
        let removal = h.engine.removeFence(id: "f", now: T0 + 60)
        #expect(removal.transitions.isEmpty)
        #expect(removal.changedDevices.isEmpty)
        h.feed(eastWest(Array(repeating: 0, count: 10), from: T0 + 60))
        h.tick(T0 + 10_000)
        #expect(h.alerts.isEmpty)
        #expect(h.engine.seq(of: "truck-7") == 0)
    }

    @Test func fenceRemovedWhileOutsideGivesNothing() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed([sample(destination(depot, bearing: 0, meters: 300), t: T0)])
        let removal = h.engine.removeFence(id: "f", now: T0 + 60)
        #expect(removal.transitions.isEmpty && removal.changedDevices.isEmpty)
    }

    @Test func fenceRemovedWithoutExitInNotifyChangesTheDeviceSilently() throws {
        var h = try Harness([circle("f", radius: 200, notify: [.enter])])
        h.feed([sample(depot, t: T0)])
        let removal = h.engine.removeFence(id: "f", now: T0 + 60)
        #expect(removal.transitions.isEmpty)
        #expect(removal.changedDevices == ["truck-7"])
    }

    @Test func fenceRemovedWithSeveralDevicesInsideExitsEachOnce() throws {
        var h = try Harness([circle("f", radius: 200), circle("g", at: destination(depot, bearing: 90, meters: 3_000), radius: 200)])
        for device in ["a", "b", "c"] { h.feed([sample(depot, t: T0)], device: device) }
        h.feed([sample(destination(depot, bearing: 90, meters: 3_000), t: T0)], device: "d")
        let removal = h.engine.removeFence(id: "f", now: T0 + 60)
        #expect(Set(removal.changedDevices) == ["a", "b", "c"])
        #expect(removal.transitions.map(\.device).sorted() == ["a", "b", "c"])
        #expect(removal.transitions.allSatisfy { $0.reason == "fence_removed" && $0.seq == 1 })
        #expect(h.engine.insideFences(of: "d") == ["g"])
    }

    @Test func removingAnUnknownFenceDoesNothing() throws {
        var h = try insideByEnter()
        let removal = h.engine.removeFence(id: "nope", now: T0 + 60)
        #expect(removal.transitions.isEmpty && removal.changedDevices.isEmpty)
        #expect(h.engine.insideFences(of: "truck-7") == ["f"])
    }

    @Test func fenceReAddedAfterRemovalWhileInsideIsFirstSightAgain() throws {
        var h = try insideByEnter()
        h.engine.removeFence(id: "f", now: T0 + 60)
        try h.engine.setFence(circle("f", radius: 200))
        #expect(h.engine.state(of: "truck-7", in: "f") == .unknown)
        h.feed(eastWest([0, 0, 0], from: T0 + 70))
        #expect(h.engine.state(of: "truck-7", in: "f") == .inside)
        #expect(events(h.alerts) == ["enter f"])  // the first enter only
    }

    @Test func removedFenceSlotReusedByAnotherFenceDoesNotInheritState() throws {
        var h = try insideByEnter()
        h.engine.removeFence(id: "f", now: T0 + 60)
        // A different fence, added after removal, where the device is: first sight, silent.
        try h.engine.setFence(circle("other", radius: 500))
        h.feed(eastWest([0], from: T0 + 70))
        #expect(h.engine.state(of: "truck-7", in: "other") == .inside)
        #expect(events(h.alerts) == ["enter f"])
        // A far-away fence reusing nothing of f's state.
        try h.engine.setFence(circle("far", at: destination(depot, bearing: 0, meters: 50_000), radius: 500))
        h.feed(eastWest([0], from: T0 + 75))
        #expect(h.engine.state(of: "truck-7", in: "far") == .outside)
    }

    /// A fence built beforehand (a fences file builds them in parallel) is set as built when the
    /// engine clamps the same way, and built again with the engine's limits when it does not.
    @Test func aFenceBuiltBeforehandFollowsTheEnginesRadiusLimits() throws {
        let small = circle("small", at: depot, radius: 10)
        let builtWithDefaults = try Fence(definition: small, settings: GeofenceSettings())
        #expect(builtWithDefaults.effectiveRadius == 20)

        var same = GeofenceEngine(settings: GeofenceSettings())
        #expect(try same.setFence(builtWithDefaults).fence.effectiveRadius == 20)

        var stricter = GeofenceEngine(settings: GeofenceSettings(minRadiusMeters: 50))
        let update = try stricter.setFence(builtWithDefaults)
        #expect(update.fence.effectiveRadius == 50 && update.fence.clampedFrom == 10)
        #expect(stricter.fence(id: "small")?.effectiveRadius == 50)
    }
}
