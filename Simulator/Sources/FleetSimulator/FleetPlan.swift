import Foundation
import GeofenceEngine
import SeededRandom

/// Which truck drives which route, from when and in which direction: everything about the
/// fleet that does not depend on the clock. Same routes, options and seed: same plan.
public struct FleetPlan: Sendable {
    public struct Truck: Sendable, Hashable {
        /// 1-based, as in the device id.
        public var index: Int
        public var device: String
        /// Index into the plan's routes.
        public var route: Int
        /// Simulated time of its first position.
        public var start: Double
        public var reversed: Bool
    }

    public let options: FleetOptions
    public let trucks: [Truck]
    /// Per route: driven forwards and backwards.
    let replays: [(forward: RouteReplay, backward: RouteReplay)]

    public var routeCount: Int { replays.count }
    public func replay(route: Int) -> RouteReplay { replays[route].forward }

    /// Truck k gets route (k - 1) mod R; starts and directions come from the seed.
    public init(routes: [GPXRoute], options: FleetOptions) {
        precondition(!routes.isEmpty, "a fleet needs at least one route")
        self.options = options
        replays = routes.map {
            (RouteReplay(route: $0, speedKmh: options.speedKmh), RouteReplay(route: $0, speedKmh: options.speedKmh, reversed: true))
        }
        var random = SeededRandom(seed: options.seed, stream: 0)
        trucks = (0..<max(options.trucks, 0)).map { i in
            let offset = random.nextUnit() * max(options.stagger, 0)
            let backwards = random.nextUnit() < 0.5
            let start = options.startTime + offset
            return Truck(
                index: i + 1, device: "\(options.prefix)\(i + 1)", route: i % routes.count,
                start: options.wholeSeconds ? start.rounded(.down) : start, reversed: options.reverse && backwards)
        }
    }

    /// When every truck has stopped, or `nil` when the fleet loops without a duration.
    public var endTime: Double? {
        if let duration = options.duration { return options.startTime + duration }
        if options.loop { return nil }
        return trucks.map { $0.start + replays[$0.route].forward.duration }.max() ?? options.startTime
    }

    /// Time of the truck's `n`-th position (from 0), or `nil` once it has stopped: every
    /// `interval` along the route, plus the route's last point when the steps miss it.
    public func sampleTime(_ truck: Truck, _ n: Int) -> Double? {
        let interval = max(options.interval, 0.001)
        var elapsed = Double(n) * interval
        if !options.loop {
            let duration = replays[truck.route].forward.duration
            let steps = (duration / interval + 1e-9).rounded(.down)
            if Double(n) > steps {
                guard Double(n) == steps + 1, steps * interval < duration - 1e-6 else { return nil }
                // Past the end the state is the route's last point: a whole second later is it too.
                elapsed = options.wholeSeconds ? duration.rounded(.up) : duration
            }
        }
        let time = truck.start + elapsed
        if let duration = options.duration, time > options.startTime + duration { return nil }
        return time
    }

    /// The instants `truck` reports at: every `interval`, but every `parkedInterval` while it
    /// stands still (a tracker's parked reporting).
    public func sampleTimes(_ truck: Truck) -> SampleTimes { SampleTimes(plan: self, truck: truck) }

    public struct SampleTimes: Sendable, Sequence, IteratorProtocol {
        let plan: FleetPlan
        let truck: Truck
        private var grid = 0
        /// The last instant on the grid, and the last one reported (jittered).
        private var last: Double?
        private var lastSent = -Double.infinity
        /// A stream of its own, so that turning jitter on moves no truck's noise, gaps or outliers.
        private var jitter: SeededRandom

        init(plan: FleetPlan, truck: Truck) {
            self.plan = plan
            self.truck = truck
            jitter = SeededRandom(seed: plan.options.seed, stream: UInt64(truck.index) << 32 | 1)
        }

        public mutating func next() -> Double? {
            while let time = plan.sampleTime(truck, grid) {
                grid += 1
                if let parked = plan.options.parkedInterval, let last, time - last < parked - 1e-9,
                    plan.state(of: truck, at: time).speed == 0, plan.state(of: truck, at: last).speed == 0
                {
                    continue
                }
                last = time
                lastSent = jittered(time)
                return lastSent
            }
            return nil
        }

        /// `time` moved by up to half the jitter's share of the interval either way, still after the
        /// fix before it (a route's last point may follow the grid's last step closely).
        private mutating func jittered(_ time: Double) -> Double {
            let share = plan.options.jitter
            guard share > 0 else { return time }
            let bound = share * plan.options.interval / 2
            var offset = (jitter.nextUnit() - 0.5) * 2 * bound
            // Whole seconds, never wider than the jitter asked for (rounded toward the grid, a
            // jitter under two seconds each way was none at all).
            if plan.options.wholeSeconds { offset = Swift.min(Swift.max(offset.rounded(), -bound.rounded(.down)), bound.rounded(.down)) }
            let step = plan.options.wholeSeconds ? 1.0 : 0.001
            return Swift.max(time + offset, lastSent + step)
        }
    }

    /// The noise-free state of `truck` at simulated `time` (clamped to its route's ends; looping
    /// trucks turn round at each end).
    public func state(of truck: Truck, at time: Double) -> ReplayState {
        let legs = replays[truck.route]
        let (ahead, back) = truck.reversed ? (legs.backward, legs.forward) : (legs.forward, legs.backward)
        let elapsed = max(0, time - truck.start)
        guard options.loop, ahead.duration > 0 else { return ahead.state(at: elapsed) }
        let cycle = (elapsed / ahead.duration).rounded(.down)
        let phase = elapsed - cycle * ahead.duration
        return cycle.truncatingRemainder(dividingBy: 2) == 0 ? ahead.state(at: phase) : back.state(at: phase)
    }
}
