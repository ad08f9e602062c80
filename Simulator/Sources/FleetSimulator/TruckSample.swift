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
    /// The published position: the truth plus noise.
    public var observed: Coordinate
    public var accuracy: Double
}

/// The positions of one truck in order, noise drawn from the truck's own seeded stream.
public struct TruckSampler: Sendable {
    public let plan: FleetPlan
    public let truck: Int
    private var noise: GaussianNoise
    public private(set) var nextSequence = 0

    public init(plan: FleetPlan, truck: Int) {
        self.plan = plan
        self.truck = truck
        noise = GaussianNoise(random: SeededRandom(seed: plan.options.seed, stream: UInt64(truck + 1)))
    }

    /// When the next position is due, or `nil` once the truck has stopped.
    public var nextTime: Double? { plan.sampleTime(plan.trucks[truck], nextSequence) }

    public mutating func next() -> TruckSample? {
        let info = plan.trucks[truck]
        guard let time = plan.sampleTime(info, nextSequence) else { return nil }
        let truth = plan.state(of: info, at: time)
        let error = noise.offset(sigma: plan.options.noise)
        let sample = TruckSample(
            truck: truck, sequence: nextSequence, time: time, truth: truth,
            observed: Geodesy.offset(truth.coordinate, north: error.north, east: error.east),
            accuracy: plan.options.accuracy)
        nextSequence += 1
        return sample
    }
}
