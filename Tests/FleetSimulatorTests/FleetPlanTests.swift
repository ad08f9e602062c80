import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

@Suite("Fleet plan and schedule")
struct FleetPlanTests {
    let routes = [
        Fixtures.straightRoute([0, 500], name: "a"),
        Fixtures.straightRoute([0, 1000], north: 100, name: "b"),
        Fixtures.straightRoute([0, 200], north: 200, name: "c"),
    ]

    func options(_ change: (inout FleetOptions) -> Void = { _ in }) -> FleetOptions {
        var options = FleetOptions()
        options.trucks = 7
        options.speedKmh = 36
        options.startTime = 1_000_000
        options.stagger = 60
        change(&options)
        return options
    }

    @Test func trucksTakeRoutesInTurnWithSeededStarts() {
        let plan = FleetPlan(routes: routes, options: options())
        #expect(plan.trucks.map(\.route) == [0, 1, 2, 0, 1, 2, 0])
        #expect(plan.trucks.map(\.device) == (1...7).map { "truck-\($0)" })
        #expect(plan.trucks.allSatisfy { $0.start >= 1_000_000 && $0.start < 1_000_060 })
        #expect(Set(plan.trucks.map(\.start)).count == 7)
        #expect(plan.trucks.allSatisfy { !$0.reversed })
    }

    @Test func sameSeedSamePlanOtherSeedOtherPlan() {
        let a = FleetPlan(routes: routes, options: options { $0.reverse = true; $0.noise = 5 })
        let b = FleetPlan(routes: routes, options: options { $0.reverse = true; $0.noise = 5 })
        let c = FleetPlan(routes: routes, options: options { $0.reverse = true; $0.noise = 5; $0.seed = 2 })
        #expect(a.trucks == b.trucks)
        #expect(a.trucks != c.trucks)
        #expect(a.trucks.contains { $0.reversed } && a.trucks.contains { !$0.reversed })
        var sa = FleetSchedule(plan: a), sb = FleetSchedule(plan: b)
        for _ in 0..<500 {
            #expect(sa.next(through: .infinity) == sb.next(through: .infinity))
        }
    }

    @Test func aTrucksSamplesFollowTheIntervalAndEndAtTheRouteEnd() {
        let plan = FleetPlan(routes: routes, options: options { $0.interval = 15 })
        let truck = plan.trucks[0]  // route a: 500 m at 10 m/s = 50 s
        var times: [Double] = []
        while let t = plan.sampleTime(truck, times.count) { times.append(t - truck.start) }
        #expect(times.count == 5)
        #expect(times.prefix(4) == [0, 15, 30, 45])
        #expect(abs(times[4] - 50) < 0.01)
        #expect(abs(plan.endTime! - plan.trucks.map { $0.start + plan.replay(route: $0.route).duration }.max()!) < 1e-6)
    }

    @Test func loopingTrucksTurnRoundAndDurationStopsThem() {
        let plan = FleetPlan(routes: routes, options: options { $0.loop = true; $0.duration = 400 })
        let truck = plan.trucks[0]
        let start = Fixtures.point(north: 0, east: 0), end = Fixtures.point(north: 0, east: 500)
        #expect(Earth.distance(plan.state(of: truck, at: truck.start + 50).coordinate, end) < 0.5)
        #expect(Earth.distance(plan.state(of: truck, at: truck.start + 75).coordinate, Fixtures.point(north: 0, east: 250)) < 0.5)
        #expect(Earth.distance(plan.state(of: truck, at: truck.start + 100).coordinate, start) < 0.5)
        #expect(abs(plan.state(of: truck, at: truck.start + 75).heading - 270) < 0.5)
        #expect(plan.endTime == 1_000_400)
        var n = 0
        while let t = plan.sampleTime(truck, n) {
            #expect(t <= 1_000_400)
            n += 1
        }
        #expect(n == Int(1_000_400 - truck.start) + 1)
    }

    @Test func scheduleMergesAllTrucksInTimeOrder() {
        let plan = FleetPlan(routes: routes, options: options { $0.trucks = 50; $0.interval = 2 })
        var schedule = FleetSchedule(plan: plan)
        #expect(schedule.activeTrucks == 50)
        var last = -Double.infinity
        var perTruck = [Int](repeating: 0, count: 50)
        // Nothing is handed out before it is due.
        let first = schedule.nextTime!
        #expect(schedule.next(through: first - 0.001) == nil)
        while let sample = schedule.next(through: .infinity) {
            #expect(sample.time >= last)
            #expect(sample.sequence == perTruck[sample.truck])
            last = sample.time
            perTruck[sample.truck] += 1
        }
        #expect(schedule.activeTrucks == 0)
        for (truck, count) in perTruck.enumerated() {
            var expected = 0
            while plan.sampleTime(plan.trucks[truck], expected) != nil { expected += 1 }
            #expect(count == expected)
        }
    }
}
