import Foundation
import Synchronization

/// Pauses of the whole machine, as a thread of its own that sleeps 50 ms at a time sees them.
/// A shared 2-core test machine was once seen to stand still for 13.5 s: every test running then,
/// and fleetsim in a process of its own, came out late by the same amount. A bound on how soon
/// something arrives judges the code only net of such a pause; a lost wake-up or a slow path
/// shows with no pause beside it.
public final class StallWatch: Sendable {
    /// Started at first use, kept for the test process's life (20 wake-ups a second).
    private static let shared = StallWatch()

    private struct Gap {
        var start: ContinuousClock.Instant
        var end: ContinuousClock.Instant
    }

    private struct State {
        var gaps: [Gap] = []
        /// When the thread last woke: a pause under way has no gap yet.
        var lastWake = ContinuousClock.now
    }

    private static let tick = Duration.milliseconds(50)
    /// A sleep this much longer than asked for counts as a pause. The thread may also just not
    /// have been given a core for that long; on a machine that busy the bounds are moot anyway.
    private static let threshold = Duration.milliseconds(500)

    private let state = Mutex(State())

    private init() {
        let thread = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: 0.05)
                let now = ContinuousClock.now
                state.withLock { state in
                    if now - state.lastWake - Self.tick > Self.threshold {
                        state.gaps.append(Gap(start: state.lastWake + Self.tick, end: now))
                    }
                    state.lastWake = now
                }
            }
        }
        thread.name = "stall-watch"
        thread.start()
    }

    /// Time measured from now, with the machine's pauses meanwhile; the watch runs from here on.
    public static func stopwatch() -> Stopwatch {
        Stopwatch(watch: shared, start: .now)
    }

    public struct Stopwatch: Sendable {
        let watch: StallWatch
        let start: ContinuousClock.Instant

        /// The time since the start, less the machine's pauses in it.
        public var elapsedWithoutPauses: Duration {
            let end = ContinuousClock.now
            return end - start - watch.pauses(from: start, to: end).reduce(.zero, +)
        }

        /// The longest single pause since the start: what one delay measured in that time may
        /// owe to the machine.
        public var longestPause: Duration {
            watch.pauses(from: start, to: .now).max() ?? .zero
        }
    }

    /// Each pause's part within the interval, the one under way included.
    private func pauses(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> [Duration] {
        let now = ContinuousClock.now
        return state.withLock { state in
            var gaps = state.gaps
            if now - state.lastWake - Self.tick > Self.threshold { gaps.append(Gap(start: state.lastWake + Self.tick, end: now)) }
            return gaps.compactMap { gap in
                let overlap = min(end, gap.end) - max(start, gap.start)
                return overlap > .zero ? overlap : nil
            }
        }
    }
}
