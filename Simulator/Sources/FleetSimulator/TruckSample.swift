import Foundation
import GeofenceEngine
import SeededRandom

/// One position a truck reports: the noise-free truth and what it publishes.
public struct TruckSample: Sendable, Hashable {
    /// Index into the plan's trucks (0-based).
    public var truck: Int
    /// Which of the truck's positions (from 0).
    public var sequence: Int
    /// Simulated time, the payload's `ts`.
    public var time: Double
    public var truth: ReplayState
    /// The published position: the truth plus noise (or a multipath outlier).
    public var observed: Coordinate
    public var accuracy: Double
    /// Simulated time it is sent at: its own, or, kept through a coverage gap, the time of the
    /// live fix it is sent with (or behind).
    public var due: Double
}

/// The positions of one truck in the order it sends them: noise, outliers and coverage gaps drawn
/// from the truck's own seeded streams.
public struct TruckSampler: Sendable {
    public let plan: FleetPlan
    public let truck: Int
    private var noise: GaussianNoise
    private var times: FleetPlan.SampleTimes
    /// Outliers and gaps: a stream of their own, so that turning them on moves no truck's noise.
    private var model: SeededRandom
    private var generated = 0
    /// Ready to send, in order.
    private var ready: [TruckSample] = []
    private var readyIndex = 0
    /// Fixes kept through the current coverage gap.
    private var backlog: [TruckSample] = []
    private var gap: Range<Double>?
    /// Live fixes sent since the last gap ended, and the time of the latest.
    private var livesSinceGap = 0
    private var lastLive = 0.0

    public init(plan: FleetPlan, truck: Int) {
        self.plan = plan
        self.truck = truck
        noise = GaussianNoise(random: SeededRandom(seed: plan.options.seed, stream: UInt64(truck + 1)))
        model = SeededRandom(seed: plan.options.seed, stream: UInt64(truck + 1) << 32)
        times = plan.sampleTimes(plan.trucks[truck])
        gap = nextGap(after: plan.trucks[truck].start)
        fill()
    }

    /// When the next position is sent, or `nil` once the truck has stopped.
    public var nextTime: Double? { readyIndex < ready.count ? ready[readyIndex].due : nil }

    public mutating func next() -> TruckSample? {
        guard readyIndex < ready.count else { return nil }
        let sample = ready[readyIndex]
        readyIndex += 1
        fill()
        return sample
    }

    /// Makes the next sendable samples ready: a fix in a gap is kept, and the backlog goes with the
    /// first fix after the gap (before or after it), or after the `backlogBehind`-th.
    private mutating func fill() {
        guard readyIndex >= ready.count else { return }
        ready.removeAll(keepingCapacity: true)
        readyIndex = 0
        while ready.isEmpty {
            guard let sample = generate() else {
                // The route ended with fixes kept: the tracker sends them when it stops.
                ready = sendBacklog(at: max(backlog.last?.time ?? 0, lastLive))
                return
            }
            while let current = gap, sample.time >= current.upperBound { gap = nextGap(after: current.upperBound) }
            if let current = gap, current.contains(sample.time) {
                if livesSinceGap > 0, !backlog.isEmpty {
                    // Coverage lost again before `backlogBehind` live fixes: the tracker sent what
                    // it kept behind the last of them.
                    ready = sendBacklog(at: lastLive)
                }
                backlog.append(sample)
                livesSinceGap = 0
                continue
            }
            lastLive = sample.time
            livesSinceGap += 1
            let order = plan.options.backlog
            if backlog.isEmpty || (order != .oldestFirst && livesSinceGap < plan.options.backlogBehind) {
                ready = [sample]
            } else if order == .oldestFirst {
                ready = sendBacklog(at: sample.time) + [sample]
            } else {
                ready = [sample] + sendBacklog(at: sample.time)
            }
        }
    }

    /// The kept fixes in the order the tracker sends them, at `time`; none kept after.
    private mutating func sendBacklog(at time: Double) -> [TruckSample] {
        let kept = backlog.map { kept in
            var kept = kept
            kept.due = time
            return kept
        }
        backlog = []
        return plan.options.backlog == .newestFirst ? kept.reversed() : kept
    }

    private mutating func generate() -> TruckSample? {
        let info = plan.trucks[truck]
        guard let time = times.next() else { return nil }
        let truth = plan.state(of: info, at: time)
        let error = noise.offset(sigma: plan.options.noise)
        var observed = Geodesy.offset(truth.coordinate, north: error.north, east: error.east)
        if plan.options.outliers > 0, model.nextUnit() < plan.options.outliers {
            // Multipath: a fix hundreds of metres off that claims an ordinary accuracy.
            let distance = 300 + model.nextUnit() * 1200
            let bearing = model.nextUnit() * 2 * Double.pi
            observed = Geodesy.offset(observed, north: distance * cos(bearing), east: distance * sin(bearing))
        }
        let sample = TruckSample(
            truck: truck, sequence: generated, time: time, truth: truth, observed: observed,
            accuracy: plan.options.accuracy, due: time)
        generated += 1
        return sample
    }

    /// The next coverage gap starting after `time` (exponential spacing), or nil without gaps.
    private mutating func nextGap(after time: Double) -> Range<Double>? {
        let rate = plan.options.gapsPerHour / 3600
        guard rate > 0 else { return nil }
        let start = time - log(1 - model.nextUnit()) / rate
        let span = plan.options.gapLength
        let length = span.lowerBound + model.nextUnit() * (span.upperBound - span.lowerBound)
        return start..<(start + max(length, 0))
    }
}
