import Foundation
import SeededRandom

/// Normally distributed numbers by Box–Muller over a seeded generator. Each transform yields two
/// independent values; the second is kept for the next call.
public struct GaussianNoise: Sendable {
    private var random: SeededRandom
    private var spare: Double?

    public init(random: SeededRandom) {
        self.random = random
    }

    /// A standard normal value (mean 0, standard deviation 1).
    public mutating func next() -> Double {
        if let spare {
            self.spare = nil
            return spare
        }
        // 1 - u is in (0, 1], so the logarithm is finite.
        let u1 = 1 - random.nextUnit()
        let u2 = random.nextUnit()
        let radius = (-2 * log(u1)).squareRoot()
        let angle = 2 * Double.pi * u2
        spare = radius * sin(angle)
        return radius * cos(angle)
    }

    /// A north/east error in metres with standard deviation `sigma` on each axis.
    public mutating func offset(sigma: Double) -> (north: Double, east: Double) {
        guard sigma > 0 else { return (0, 0) }
        return (next() * sigma, next() * sigma)
    }
}
