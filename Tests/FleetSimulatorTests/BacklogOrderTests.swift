import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

/// docs/rules.md "Late samples", on what the simulator's trackers send: for every truck of a seeded fleet
/// with coverage gaps, the engine gives the same alerts (kinds, crossing times, order) whether the
/// backlog comes before the live fix or after it, oldest or newest first. Arrival is the time a sample is sent, in
/// simulated seconds. `confirmed_at` may differ in one case that section names: a change whose
/// evidence began before the gap is confirmed by the live fix, which arrives first. Trackers whose
/// reports jitter, and a backlog sent behind later live fixes, are held to the same.
@Suite("Backlog order, engine only")
struct BacklogOrderTests {
    /// Every truck's alerts, and how many of its late samples were merged and dropped.
    static func alerts(
        order: FleetOptions.BacklogOrder, model: (inout FleetOptions) -> Void
    ) throws -> (byTruck: [String: [Transition]], late: Int, tooLate: Int) {
        var options = FleetOptions()
        options.trucks = 25
        options.noise = 10
        options.seed = 5
        options.startTime = 1_800_000_000
        options.gapsPerHour = 8
        options.gapLength = 60...300
        options.backlog = order
        model(&options)
        let plan = FleetPlan(routes: Fixtures.bundledRoutes, options: options)
        let definitions = try FenceFile.load(contentsOf: Fixtures.packageRoot.appendingPathComponent("Config/fences.geojson"))
        var settings = GeofenceSettings()
        settings.silentConfirmSeconds = 180
        var byTruck: [String: [Transition]] = [:]
        var late = 0, tooLate = 0
        for truck in plan.trucks.indices {
            var engine = GeofenceEngine(settings: settings)
            for definition in definitions { _ = try engine.setFence(definition) }
            var sampler = TruckSampler(plan: plan, truck: truck)
            var out: [Transition] = []
            var last = 0.0
            while let sample = sampler.next() {
                engine.tick(now: sample.due, into: &out)
                let position = PositionSample(
                    lat: sample.observed.lat, lon: sample.observed.lon, timestamp: sample.time, accuracy: sample.accuracy,
                    speed: sample.truth.speed)
                engine.process(device: plan.trucks[truck].device, sample: position, arrival: sample.due, into: &out)
                last = sample.due
            }
            engine.tick(now: last + 1_000, into: &out)
            byTruck[plan.trucks[truck].device] = out
            late += engine.counters.late
            tooLate += engine.counters.tooLate
        }
        return (byTruck, late, tooLate)
    }

    @Test(arguments: [(FleetOptions.BacklogOrder.liveFirst, 1.0), (.liveFirst, 10.0), (.newestFirst, 1.0), (.newestFirst, 10.0)])
    func backlogAfterTheLiveFixGivesTheAlertsOfOldestFirst(order: FleetOptions.BacklogOrder, interval: Double) throws {
        try expectAlertsOfOldestFirst(order: order) { options in
            options.interval = interval
            options.parkedInterval = interval > 1 ? 120 : nil
        }
    }

    /// Reports ±20% apart, the widest jitter docs/rules.md "Late samples" tells from an outage, and
    /// the backlog behind as many live fixes as come before the debounce could confirm a crossing
    /// made in the gap: 16 at 1 s (under 20 s however they jitter), 2 at 10 s, 1 at 30 s (parked or
    /// not).
    @Test(arguments: [
        (FleetOptions.BacklogOrder.newestFirst, 1.0, 16), (.liveFirst, 1.0, 16), (.newestFirst, 10.0, 2), (.liveFirst, 10.0, 2),
        (.newestFirst, 30.0, 1),
    ])
    func aJitteringTrackersBacklogBehindLiveFixesGivesTheAlertsOfOldestFirst(
        order: FleetOptions.BacklogOrder, interval: Double, behind: Int
    ) throws {
        try expectAlertsOfOldestFirst(order: order) { options in
            options.interval = interval
            options.parkedInterval = interval > 1 ? 120 : nil
            options.jitter = 0.2
            options.backlogBehind = behind
        }
    }

    func expectAlertsOfOldestFirst(order: FleetOptions.BacklogOrder, model: (inout FleetOptions) -> Void) throws {
        let oldest = try Self.alerts(order: .oldestFirst, model: model)
        let live = try Self.alerts(order: order, model: model)
        #expect(oldest.byTruck.values.map(\.count).reduce(0, +) > 25)
        #expect(oldest.late == 0 && oldest.tooLate == 0)
        #expect(live.late > 0, "backlogs came behind a live fix and were merged")
        #expect(live.tooLate == 0, "no kept fix was dropped")
        for device in oldest.byTruck.keys.sorted() {
            let a = oldest.byTruck[device]!.map { "\($0.event) \($0.fenceID) at \($0.at) seq \($0.seq)" }
            let b = live.byTruck[device]!.map { "\($0.event) \($0.fenceID) at \($0.at) seq \($0.seq)" }
            #expect(a == b, "\(device)")
            for (x, y) in zip(oldest.byTruck[device]!, live.byTruck[device]!) {
                #expect(y.confirmedAt >= x.confirmedAt, "\(device): never confirmed before the upload oldest-first would")
            }
        }
    }
}
