import Foundation
import Testing

@testable import GeofenceEngine

/// docs/rules.md "The rules", `expires_at`: at that wall-clock time the fence goes and the devices inside
/// exit with reason `fence_expired`; until the caller's tick removes it, it says nothing.
@Suite("Expiry")
struct ExpiryTests {
    private func expiring(_ id: String = "pop-up", at time: Double, notify: Set<AlertEvent>? = nil) -> FenceDefinition {
        var fence = circle(id, radius: 200, name: "Pop-up", notify: notify)
        fence.expiresAt = time
        return fence
    }

    @Test func aDeviceInsideExitsAtTheExpiry() throws {
        var h = try Harness([expiring(at: T0 + 100), circle("other", radius: 500)])
        h.feed([sample(depot, t: T0)])
        #expect(h.engine.nextExpiry == T0 + 100)
        #expect(h.engine.expireFences(now: T0 + 99.9).fences.isEmpty)
        let removal = h.engine.expireFences(now: T0 + 100.25)
        #expect(removal.fences == ["pop-up"])
        #expect(removal.transitions.map { "\($0.event.rawValue) \($0.fenceID) \($0.reason ?? "")" } == ["exit pop-up fence_expired"])
        let exit = try #require(removal.transitions.first)
        #expect(exit.at == T0 + 100 && exit.confirmedAt == T0 + 100 && exit.durationSeconds == 100 && exit.seq == 1)
        #expect(removal.changes.map(\.device) == ["truck-7"] && removal.changes.first?.at == T0 + 100)
        #expect(h.engine.fence(id: "pop-up") == nil && h.engine.nextExpiry == nil)
        #expect(h.engine.insideFences(of: "truck-7") == ["other"])
    }

    @Test func notifyGovernsTheExpiredExit() throws {
        var h = try Harness([expiring(at: T0 + 100, notify: [.enter])])
        h.feed([sample(depot, t: T0)])
        let removal = h.engine.expireFences(now: T0 + 100)
        #expect(removal.transitions.isEmpty)
        #expect(removal.changes.map(\.device) == ["truck-7"], "the retained state still changes")
    }

    @Test func aPendingEnterIsDroppedWithoutAnAlert() throws {
        var h = try Harness([expiring(at: T0 + 100)])
        h.feed([sample(atBoundary(radius: 200, d: -100), t: T0), sample(atBoundary(radius: 200, d: 50), t: T0 + 5)])
        #expect(h.engine.pendingChange(of: "truck-7", in: "pop-up")?.evidenceSince == T0 + 5)
        let removal = h.engine.expireFences(now: T0 + 100)
        #expect(removal.transitions.isEmpty && removal.changes.isEmpty)
        #expect(h.engine.deviceRecord(for: "truck-7")?.regions.isEmpty == true)
    }

    @Test func aDeviceWhoseExitWasPendingExitsAsExpired() throws {
        var h = try Harness([expiring(at: T0 + 100)])
        h.feed([sample(depot, t: T0), sample(atBoundary(radius: 200, d: -50), t: T0 + 90)])
        #expect(h.engine.pendingChange(of: "truck-7", in: "pop-up") != nil)
        let removal = h.engine.expireFences(now: T0 + 100)
        #expect(removal.transitions.map(\.reason) == ["fence_expired"])
    }

    /// Between its expiry and the tick that removes it, a fence confirms nothing: not by a sample,
    /// not by silence.
    @Test func anExpiredFenceSaysNothingBeforeItIsRemoved() throws {
        var h = try Harness([expiring(at: T0 + 30)])
        // Evidence from +10, confirmation due at +30 by a sample that arrives at +30.25.
        h.feed([sample(atBoundary(radius: 200, d: -100), t: T0)])
        h.feed((1...6).map { sample(atBoundary(radius: 200, d: 50), t: T0 + 5 + 5 * Double($0)) })
        #expect(h.alerts.isEmpty)
        // Silence cannot confirm it either.
        var g = try Harness([expiring(at: T0 + 30)])
        g.feed([sample(atBoundary(radius: 200, d: -100), t: T0), sample(atBoundary(radius: 200, d: 50), t: T0 + 5)])
        g.tick(T0 + 40)
        #expect(g.alerts.isEmpty)
        #expect(g.engine.expireFences(now: T0 + 40).transitions.isEmpty)
    }

    /// Nor by samples whose time is past `expires_at`, however early they arrive (a device whose
    /// clock runs ahead, within `max_future_s`): the rules run in event time. Arriving 40-60 s
    /// before their `ts`, they confirmed an enter at and after the expiry.
    @Test func samplesTimedAfterTheExpiryConfirmNothing() throws {
        var h = try Harness([expiring(at: T0 + 30)])
        h.feed([sample(atBoundary(radius: 200, d: -100), t: T0)], lag: 0)
        for (k, t) in [40.0, 50, 60, 70].enumerated() {
            h.feed(sample(atBoundary(radius: 200, d: 50), t: T0 + t), arrival: T0 + 1 + Double(k))
        }
        #expect(h.alerts.isEmpty, "\(h.alerts.map { "\($0.event.rawValue) at \($0.at - T0)" })")
        // Nor silence, when the change it would confirm is due at or after the expiry: evidence from
        // a sample timed before it (arriving early too), quiet for `silent_confirm_s` before it.
        var g = try Harness([expiring(at: T0 + 30)])
        g.feed([sample(atBoundary(radius: 200, d: -100), t: T0)], lag: 0)
        g.feed(sample(atBoundary(radius: 200, d: 50), t: T0 + 25), arrival: T0 + 1)
        g.tick(T0 + 22)
        #expect(g.alerts.isEmpty, "\(g.alerts.map { "\($0.event.rawValue) confirmed \($0.confirmedAt - T0)" })")
    }

    @Test func theEarliestExpiryFollowsReplacesAndRemovals() throws {
        var engine = GeofenceEngine()
        try engine.setFence(expiring("a", at: T0 + 100))
        try engine.setFence(expiring("b", at: T0 + 50))
        #expect(engine.nextExpiry == T0 + 50)
        try engine.setFence(expiring("b", at: T0 + 500))
        #expect(engine.nextExpiry == T0 + 100)
        engine.removeFence(id: "a", now: T0)
        #expect(engine.nextExpiry == T0 + 500)
        try engine.setFence(circle("b", radius: 100))
        #expect(engine.nextExpiry == nil)
    }

    @Test func aFenceSetAlreadyExpiredGoesAtTheNextCall() throws {
        var engine = GeofenceEngine()
        try engine.setFence(expiring(at: T0 - 10))
        #expect(engine.expireFences(now: T0).fences == ["pop-up"])
        #expect(engine.fenceCount == 0)
    }
}
