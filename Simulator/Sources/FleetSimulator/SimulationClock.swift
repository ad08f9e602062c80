import Foundation

/// Simulated time runs `speedup` times faster than the wall clock, from `simulatedStart` at the
/// moment the clock starts. Monotonic underneath, so a wall-clock step cannot skew a run.
struct SimulationClock: Sendable {
    let simulatedStart: Double
    let speedup: Double
    /// Wall clock (seconds since the epoch) and monotonic instant at the start.
    let wallStart: Double
    let started: ContinuousClock.Instant

    init(simulatedStart: Double, speedup: Double) {
        self.simulatedStart = simulatedStart
        self.speedup = max(speedup, 0.001)
        wallStart = Date().timeIntervalSince1970
        started = .now
    }

    var now: Double {
        simulatedStart + Self.seconds(ContinuousClock.now - started) * speedup
    }

    /// The wall-clock time (seconds since the epoch) at which the simulation reaches `simulated`.
    func wallTime(at simulated: Double) -> Double {
        wallStart + (simulated - simulatedStart) / speedup
    }

    /// How long until the simulation reaches `simulated`.
    func wallDelay(until simulated: Double) -> Duration {
        let seconds = (simulated - now) / speedup
        return seconds > 0 ? .nanoseconds(Int64(seconds * 1e9)) : .zero
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) * 1e-18
    }
}
