import FleetFenceTesting
import Synchronization
import Testing

/// The clock the service's rules tests move: a tick lost there is a test that fails on a loaded
/// machine and passes on a quiet one.
@Suite("ManualClock", .timeLimit(.minutes(1)))
struct ManualClockTests {
    private final class Turns: Sendable {
        private let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func add() { count.withLock { $0 += 1 } }
    }

    /// A periodic task as the service runs one, on a clock of its own: sleeps a second of the
    /// clock, then takes its turn (`turn` real time long), counting turns; `body` moves the clock
    /// once the task first sleeps.
    private static func withPeriodic(
        before: Duration = .zero, turn: Duration = .zero, _ body: (ManualClock, Turns) async -> Void
    ) async {
        let clock = ManualClock(now: 0)
        let turns = Turns()
        let task = Task {
            try? await Task.sleep(for: before)
            while !Task.isCancelled {
                guard (try? await clock.sleep(for: .seconds(1))) != nil else { return }
                try? await Task.sleep(for: turn)
                turns.add()
            }
        }
        defer { task.cancel() }
        await clock.untilSleeping()
        await body(clock, turns)
    }

    @Test func anAdvanceWaitsForATurnLongerThanASecond() async {
        await Self.withPeriodic(turn: .milliseconds(1_500)) { clock, turns in
            for expected in 1...2 {
                await clock.advance(by: 1)
                #expect(turns.value == expected)
            }
        }
    }

    @Test func untilSleepingWaitsForATaskThatSleepsLate() async {
        await Self.withPeriodic(before: .milliseconds(300)) { clock, turns in
            await clock.advance(by: 1)
            #expect(turns.value == 1)
        }
    }

    @Test func aStepByStepAdvanceGivesEveryTickItsTurn() async {
        await Self.withPeriodic(turn: .milliseconds(20)) { clock, turns in
            await clock.advance(by: 10, step: 0.5)
            #expect(turns.value == 10)
        }
    }
}
