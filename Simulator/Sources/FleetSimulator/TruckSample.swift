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
    /// Simulated time it is sent at: its own, or the end of the coverage gap it was kept through.
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

    /// Makes the next sendable samples ready: a fix in a gap is kept, and the first fix after the
    /// gap goes with the backlog, before or after it.
    private mutating func fill() {
        guard readyIndex >= ready.count else { return }
        ready.removeAll(keepingCapacity: true)
        readyIndex = 0
        while ready.isEmpty {
            guard let sample = generate() else {
                // The route ended in a gap: the tracker sends what it kept when it stops.
                ready = backlog.map { kept in
                    var kept = kept
                    kept.due = backlog.last!.time
                    return kept
                }
                backlog = []
                return
            }
            while let current = gap, sample.time >= current.upperBound { gap = nextGap(after: current.upperBound) }
            if let current = gap, current.contains(sample.time) {
                backlog.append(sample)
                continue
            }
            if backlog.isEmpty {
                ready = [sample]
            } else {
                let kept = backlog.map { kept in
                    var kept = kept
                    kept.due = sample.time
                    return kept
                }
                switch plan.options.backlog {
                case .oldestFirst: ready = kept + [sample]
                case .liveFirst: ready = [sample] + kept
                case .newestFirst: ready = [sample] + kept.reversed()
                }
                backlog = []
            }
        }
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
