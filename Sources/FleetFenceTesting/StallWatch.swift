import Foundation
import Synchronization

/// Pauses of the whole machine, as a thread of its own that sleeps 50 ms at a time sees them.
/// A shared 2-core test machine was once seen to stand still for 13.5 s: every test running then,
/// and fleetsim in a process of its own, came out late by the same amount. A bound on how soon
/// something arrives judges the code only net of such a pause; a lost wake-up or a slow path
/// shows with no pause beside it.
public final class StallWatch: Sendable {
    /// Started at first use, kept for the test process's life (20 wake-ups a second).
    public static let shared = StallWatch()

    private struct Gap {
        var start: ContinuousClock.Instant
        var end: ContinuousClock.Instant
    }

    private static let tick = Duration.milliseconds(50)
    /// A sleep this much longer than asked for is a pause; shorter ones are a busy scheduler.
    private static let threshold = Duration.milliseconds(500)

    private let gaps = Mutex<[Gap]>([])

    private init() {
        let thread = Thread { [self] in
            var before = ContinuousClock.now
            while true {
                Thread.sleep(forTimeInterval: 0.05)
                let after = ContinuousClock.now
                if after - before - Self.tick > Self.threshold {
                    gaps.withLock { $0.append(Gap(start: before + Self.tick, end: after)) }
                }
                before = after
            }
        }
        thread.name = "stall-watch"
        thread.start()
    }

    /// How long the machine stood still between `start` and `end`.
    public func stalled(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Duration {
        gaps.withLock { gaps in
            gaps.reduce(.zero) { total, gap in
                let overlap = min(end, gap.end) - max(start, gap.start)
                return overlap > .zero ? total + overlap : total
            }
        }
    }
}
