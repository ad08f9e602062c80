import Foundation
import Testing

@testable import GeofenceEngine
import SeededRandom

/// docs/rules.md "Late samples" across tracker rates, outages, live fixes before the backlog and
/// backlog orders: each case compares a live-first upload with the same fixes uploaded oldest
/// first, within what a device holds (a tracker reporting every second: its live fix and three
/// more; a slower one: `samplesAfterAGap` reports; a first fix held: one report after it).
@Suite("Late samples: rates, outages and orders")
struct LateSampleMatrixTests {
    typealias Fingerprint = LateSampleTests.Fingerprint

    static let yard = circle("yard", radius: 150, dwell: 60)

    enum Order: String, CaseIterable, Sendable { case newestFirst, oldestFirst, shuffled }

    /// A tracker reporting every `interval` s: `preFixes` fixes outside (-600 m), then no coverage
    /// for `outage` s, in which it visits the yard (the middle half of the missed fixes at the
    /// centre, the rest outside), then `liveFixes` live fixes outside, then the backlog in `order`,
    /// then `postFixes` more live fixes.
    struct Scenario: CustomStringConvertible {
        var interval: Double
        var outage: Double
        var liveFixes: Int
        var order: Order
        var seed: UInt64 = 1
        var preFixes = 6
        var postFixes = 3
        /// Where the visit lies within the backlog, as fractions of it.
        var visit: (Double, Double) = (0.25, 0.75)
        var firstFixIsLive = false

        var description: String {
            "every \(Int(interval)) s, outage \(Int(outage)) s, \(liveFixes) live, \(order)\(firstFixIsLive ? ", first fix live" : "")"
        }

        var fixes: (pre: [PositionSample], backlog: [PositionSample], live: [PositionSample], post: [PositionSample]) {
            let pre = firstFixIsLive ? [] : (0..<preFixes).map { at(-600, t: T0 + interval * Double($0)) }
            let p = firstFixIsLive ? T0 - interval : T0 + interval * Double(preFixes - 1)
            var times: [Double] = []
            var t = p + interval
            while t < p + outage {
                times.append(t)
                t += interval
            }
            let m = Double(times.count)
            let backlog = times.enumerated().map { k, t in
                at(Double(k) >= visit.0 * m && Double(k) < visit.1 * m ? 0 : -600, t: t)
            }
            let liveStart = t
            let live = (0..<liveFixes).map { at(-600, t: liveStart + interval * Double($0)) }
            let post = (0..<postFixes).map { at(-600, t: liveStart + interval * Double(liveFixes + $0)) }
            return (pre, backlog, live, post)
        }
    }

    struct Result {
        var reference: [Transition]
        var merged: [Transition]
        var engine: GeofenceEngine
        var backlogCount: Int
        var same: Bool { reference.map(Fingerprint.init) == merged.map(Fingerprint.init) }
        var summary: String {
            "reference [\(reference.map { Fingerprint($0).description }.joined(separator: "; "))]"
                + " merged [\(merged.map { Fingerprint($0).description }.joined(separator: "; "))]"
                + " late \(engine.counters.late) tooLate \(engine.counters.tooLate) of \(backlogCount)"
        }
    }

    static func run(_ s: Scenario, settings: GeofenceSettings = GeofenceSettings(), fences: [FenceDefinition] = [yard]) throws -> Result {
        let (pre, backlog, live, post) = s.fixes
        var reference = try Harness(settings: settings, fences)
        reference.feed(pre + backlog + live + post)
        let end = (post.last ?? live.last!).timestamp + 0.25
        reference.tick(end + 60)

        var h = try Harness(settings: settings, fences)
        var arrival = 0.0
        func feed(_ sample: PositionSample, step: Double = 0.25) {
            arrival = max(arrival + step, sample.timestamp + 0.25)
            h.feed(sample, arrival: arrival)
        }
        for sample in pre + live { feed(sample) }
        var ordered = backlog
        switch s.order {
        case .newestFirst: ordered.reverse()
        case .oldestFirst: break
        case .shuffled:
            var rng = SeededRandom(seed: s.seed)
            ordered.shuffle(using: &rng)
        }
        for sample in ordered { feed(sample, step: 0.001) }
        for sample in post { feed(sample) }
        h.tick(max(arrival, end) + 60)
        return Result(reference: reference.alerts, merged: h.alerts, engine: h.engine, backlogCount: backlog.count)
    }

    /// The most live fixes before the backlog that a device at `interval` still holds the
    /// outage's end with.
    static func liveFixesHeld(interval: Double) -> Int {
        interval <= GeofenceEngine.gapSeconds ? GeofenceSettings().heldSamples : GeofenceEngine.samplesAfterAGap
    }

    @Test(arguments: [1.0, 10, 30, 120])
    func matrix(interval: Double) throws {
        var failures: [String] = []
        for outage in [60.0, 300, 1_200, 3_000] {
            for liveFixes in Set([1, 2, 3, Self.liveFixesHeld(interval: interval)]).sorted() {
                guard outage + interval * Double(liveFixes - 1) <= 3_600 else { continue }
                for order in Order.allCases {
                    let s = Scenario(interval: interval, outage: outage, liveFixes: liveFixes, order: order)
                    let r = try Self.run(s)
                    if !r.same || r.engine.counters.tooLate > 0 { failures.append("\(s): \(r.summary)") }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// A tracker switched on out of coverage: its first message is the live fix.
    @Test(arguments: [10.0, 30, 120])
    func matrixFirstFixLive(interval: Double) throws {
        var failures: [String] = []
        for outage in [300.0, 1_200] {
            for liveFixes in [1, 2] {
                for order in Order.allCases {
                    var s = Scenario(interval: interval, outage: outage, liveFixes: liveFixes, order: order)
                    s.firstFixIsLive = true
                    let r = try Self.run(s)
                    if !r.same { failures.append("\(s): \(r.summary)") }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test(arguments: 1...30 as ClosedRange<UInt64>)
    func shuffledBacklogs(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed, stream: 7)
        let interval = [1.0, 10, 30, 120][rng.int(0...3)]
        let outage = [60.0, 300, 600, 1_200, 2_400][rng.int(0...4)]
        let liveFixes = rng.int(1...Self.liveFixesHeld(interval: interval))
        let a = rng.uniform(0...0.6)
        var s = Scenario(interval: interval, outage: outage, liveFixes: liveFixes, order: .shuffled, seed: seed)
        s.visit = (a, a + rng.uniform(0.1...0.4))
        let r = try Self.run(s)
        #expect(r.same, "\(s): \(r.summary)")
    }

    /// A fix a second for the whole hour, in the yard from the outage's first fix, newest first
    /// behind two live fixes: held whole. With the live fixes counted against the backlog's
    /// room, its oldest fix was merged in a part of its own, and the enter came a second late.
    @Test func anHourAtAFixASecondBehindTwoLiveFixesIsHeldWhole() throws {
        var s = Scenario(interval: 1, outage: 3_600, liveFixes: 2, order: .newestFirst)
        s.visit = (0, 0.5)
        let r = try Self.run(s)
        #expect(events(r.reference) == ["enter yard", "dwell yard", "exit yard"])
        #expect(r.engine.counters.tooLate == 0, "\(r.summary)")
        #expect(r.same, "\(r.summary)")
    }

    /// Once an hour's backlog is merged, a device that falls quiet holds four fixes, not the
    /// backlog's room (200 KB; removing never gives an array's room back).
    @Test func aMergedBacklogGivesItsRoomBack() throws {
        var s = Scenario(interval: 1, outage: 3_000, liveFixes: 1, order: .newestFirst)
        s.postFixes = 0
        let r = try Self.run(s)
        #expect(r.same)
        let index = r.engine.devices.history[0]
        try #require(index >= 0)
        let held = r.engine.histories[index].held
        #expect(held.count <= 4)
        #expect(held.capacity <= 16, "held \(held.count), capacity \(held.capacity)")
    }

    /// A dwell alerted at the live fix of a 10 s tracker (the stay began before the gap), more live
    /// fixes inside, then the backlog that left the yard and came back: the dwell mark rides along
    /// as the oldest held fixes go; the backlog gives the exit, enter and second dwell at their times.
    @Test(arguments: [1, 2, 5, GeofenceEngine.samplesAfterAGap], [false, true])
    func aDwellMarkBehindSeveralLiveFixes(liveFixes: Int, newestFirst: Bool) throws {
        let covered = [at(-600, t: T0), at(0, t: T0 + 10), at(0, t: T0 + 20), at(0, t: T0 + 30)]
        let backlog = [0.0, 0, -600, -600, -600, -600, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0].enumerated().map { k, x in
            at(x, t: T0 + 40 + 10 * Double(k))
        }
        let lives = (0..<liveFixes).map { at(0, t: T0 + 300 + 10 * Double($0)) }
        func key(_ t: Transition) -> String { "\(t.event.rawValue) at \(t.at - T0) confirmed \(t.confirmedAt - T0)" }
        let expected = try LateSampleEdgeTests.run(covered + backlog + lives).alerts
        let merged = try LateSampleEdgeTests.run(covered + lives + (newestFirst ? backlog.reversed() : backlog))
        #expect(events(merged.alerts) == ["enter yard", "dwell yard", "exit yard", "enter yard", "dwell yard"],
                "\(LateSampleEdgeTests.describe(merged.alerts))")
        #expect(merged.alerts.dropFirst(2).map(key) == expected.dropFirst().map(key))
        #expect(merged.alerts.map(\.seq) == [1, 2, 3, 4, 5])
    }
}
