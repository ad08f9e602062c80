import Foundation
import Testing

@testable import GeofenceEngine
import SeededRandom

/// docs/rules.md "Late samples", as a property: trucks on seeded random walks among random fences (some
/// with a speed limit) lose coverage for twenty fixes, then send the live fix and the backlog after
/// it. Each truck's fence alerts are those of the same fixes in order, but for `confirmed_at`,
/// which the live fix may give a change whose evidence began before the gap; a speeding episode,
/// which starts once the device is confirmed inside, may then start with it too.
@Suite("Late samples: random walks")
struct LateSamplePropertyTests {
    @Test(arguments: 1...20 as ClosedRange<UInt64>)
    func liveFirstBacklogGivesTheAlertsOfTheFixesInOrder(seed: UInt64) throws {
        try check(seed: seed, backlogNewestFirst: false)
    }

    /// Many trackers upload the backlog newest first too: every fix of it is held while it
    /// arrives, or a visit of more than a few fixes loses its middle (held to four, it did).
    @Test(arguments: 1...20 as ClosedRange<UInt64>)
    func liveFirstBacklogNewestFirstGivesTheAlertsOfTheFixesInOrder(seed: UInt64) throws {
        try check(seed: seed, backlogNewestFirst: true)
    }

    private func check(seed: UInt64, backlogNewestFirst: Bool) throws {
        var rng = SeededRandom(seed: seed)
        var fences: [FenceDefinition] = []
        for k in 0..<40 {
            let centre = local(depot, x: rng.uniform(-2_000...2_000), y: rng.uniform(-2_000...2_000))
            var fence = circle("f\(k)", at: centre, radius: rng.uniform(50...400), dwell: k % 4 == 0 ? 30 : nil)
            if k % 3 == 0 { fence.speedLimitKmh = 40 }
            fences.append(fence)
        }
        var point = depot
        var heading = rng.uniform(0...(2 * .pi))
        var fixes: [PositionSample] = []
        for step in 0..<300 {
            heading += rng.uniform(-0.3...0.3)
            point = local(point, x: 15 * sin(heading), y: 15 * cos(heading))
            fixes.append(PositionSample(lat: point.lat, lon: point.lon, timestamp: T0 + Double(step), accuracy: 8, speed: 15))
        }
        let gapStart = rng.int(10...250), live = gapStart + 20
        let backlog = Array(fixes[gapStart..<live])
        var reordered = Array(fixes[..<gapStart]) + [fixes[live]] + (backlogNewestFirst ? backlog.reversed() : backlog)
        reordered += fixes[(live + 1)...]

        var inOrder = try Harness(fences)
        inOrder.feed(fixes)
        var merged = try Harness(fences)
        merged.feed(reordered)
        let key = { (t: Transition) in
            "\(t.event.rawValue) \(t.fenceID)" + (t.event == .speeding ? "" : " at \(t.at - T0)") + " seq \(t.seq)"
        }
        #expect(merged.alerts.map(key) == inOrder.alerts.map(key), "gap \(gapStart)..<\(live)")
    }
}
