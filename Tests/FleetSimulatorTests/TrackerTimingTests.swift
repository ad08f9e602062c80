import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

/// docs/simulator.md "Tracker models": what `--jitter` and `--backlog-behind` send. The backlog
/// suites compare alerts only, and would pass with either option doing nothing.
@Suite("Tracker timing: jitter and backlogs behind live fixes")
struct TrackerTimingTests {
    static func plan(_ model: (inout FleetOptions) -> Void) -> FleetPlan {
        var options = FleetOptions()
        options.trucks = 25
        options.seed = 9
        options.startTime = 1_800_000_000
        model(&options)
        return FleetPlan(routes: Fixtures.bundledRoutes, options: options)
    }

    /// Fixes 10 s ± 20% apart: every gap within 8-12 s, most of them not 10 s, in order; in whole
    /// seconds too (rounded toward the grid, never wider).
    @Test(arguments: [false, true])
    func jitteredFixesAreTheIntervalApartWithinItsShare(wholeSeconds: Bool) {
        let plan = Self.plan { options in
            options.interval = 10
            options.jitter = 0.2
            options.wholeSeconds = wholeSeconds
        }
        for truck in plan.trucks {
            let times = Array(plan.sampleTimes(truck))
            let gaps = zip(times, times.dropFirst()).map { $1 - $0 }.dropLast()  // the route's end may be nearer
            #expect(gaps.count > 10)
            #expect(gaps.allSatisfy { (8 - 1e-9)...(12 + 1e-9) ~= $0 }, "\(gaps.filter { !((8 - 1e-9)...(12 + 1e-9) ~= $0) })")
            #expect(gaps.filter { abs($0 - 10) > 0.5 }.count > gaps.count / 3, "they jitter")
            if wholeSeconds { #expect(times.allSatisfy { $0 == $0.rounded() }) }
        }
    }

    /// A newest-first backlog behind the third live fix: sent at that fix's time, right after it,
    /// newest first; the two live fixes before it are sent alone.
    @Test func aBacklogBehindTheThirdLiveFixIsSentRightAfterIt() {
        let plan = Self.plan { options in
            options.interval = 10
            options.gapsPerHour = 20
            options.gapLength = 60...300
            options.backlog = .newestFirst
            options.backlogBehind = 3
        }
        var backlogs = 0
        for truck in plan.trucks.indices {
            var sampler = TruckSampler(plan: plan, truck: truck)
            var sent: [TruckSample] = []
            while let sample = sampler.next() { sent.append(sample) }
            var k = 1
            while k < sent.count {
                guard sent[k].time < sent[k - 1].time else {
                    k += 1
                    continue
                }
                // sent[k - 1] is the live fix the backlog follows: the third since the gap ended
                // (or the last before coverage was lost again, or the route's end).
                let live = sent[k - 1]
                var end = k
                while end < sent.count, sent[end].time < live.time { end += 1 }
                let backlog = sent[k..<end]
                #expect(backlog.allSatisfy { $0.due == live.time })
                #expect(zip(backlog, backlog.dropFirst()).allSatisfy { $0.time > $1.time }, "newest first")
                let livesSinceGap = sent[..<k].reversed().prefix { $0.time > backlog.first!.time }.count
                #expect(livesSinceGap <= 3)
                if livesSinceGap == 3 { backlogs += 1 }
                k = end
            }
        }
        #expect(backlogs > 0, "backlogs sent behind the third live fix")
    }
}
