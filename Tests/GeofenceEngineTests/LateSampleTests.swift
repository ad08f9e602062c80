import Foundation
import Testing

@testable import GeofenceEngine
import SeededRandom

/// docs/rules.md "Late samples": a backlog sent after the live fix gives the alerts an upload oldest-first
/// gives; what is older than the window, or than a fence's confirmed change, says nothing.
@Suite("Late samples")
struct LateSampleTests {
    /// Every device after a gap in its reports holds a history and a sample: their size is memory
    /// per device (docs/performance.md).
    @Test func aHistoryIsFiftySixBytesAndASampleFiftySix() {
        #expect(MemoryLayout<SampleHistory>.stride == 56)
        #expect(MemoryLayout<SampleHistory.Held>.stride == 56)
    }

    /// A history's backlog times take a buffer only while a backlog is open, each history its own
    /// (copied on write), and give it up once the backlog ends; a merged backlog's times are
    /// those it was opened and joined with.
    @Test func aHistoryKeepsItsBacklogTimesApartOnlyWhileOneIsOpen() {
        var history = SampleHistory()
        #expect(history.timesBytes == 0 && !history.isOpen && !history.joined && !history.amongTrimmed(T0))
        history.noteLate(T0, arrival: T0 + 100)
        history.noteLate(T0 + 5, arrival: T0 + 101)
        #expect(history.timesBytes > 0 && history.isOpen && history.openSince == T0 && history.lastLateArrival == T0 + 101)
        var copy = history
        copy.noteJoined(at: T0 + 102)
        copy.noteJoined(at: T0 + 103)
        #expect(!history.joined && copy.joinedSince == T0 + 102)
        let ended = copy.endBacklog()
        #expect(ended.since == T0 && ended.lastArrival == T0 + 101 && ended.joined)
        #expect(copy.timesBytes == 0 && !copy.isOpen && !copy.joined && copy.lastLateArrival == -.infinity)
        #expect(history.isOpen && history.timesBytes > 0)
        history.postponeLateArrival(by: 10)
        #expect(history.endBacklog().lastArrival == T0 + 111 && history.timesBytes == 0)
    }

    /// A truck at 10 m/s, a fix every 5 s, along the east-west line through a 150 m circle: in from
    /// 600 m west, parked at the centre for two minutes, out to 600 m east.
    static let route: [PositionSample] = {
        var xs = stride(from: -600.0, to: 0, by: 50).map { $0 }
        xs += Array(repeating: 0, count: 24)
        xs += stride(from: 50.0, through: 600, by: 50).map { $0 }
        return eastWest(xs)
    }()

    static func uploads(gap: Range<Int>) -> (oldestFirst: [PositionSample], liveFirst: [PositionSample]) {
        let route = Self.route
        let live = route[gap.upperBound]
        let oldestFirst = route
        let liveFirst = Array(route[..<gap.lowerBound]) + [live] + Array(route[gap]) + Array(route[(gap.upperBound + 1)...])
        return (oldestFirst, liveFirst)
    }

    /// Feeds in the given order, arrivals a quarter second apart after the live fix.
    static func run(_ samples: [PositionSample], settings: GeofenceSettings = GeofenceSettings()) throws -> Harness {
        var h = try Harness(settings: settings, [circle("yard", radius: 150, dwell: 60)])
        var arrival = 0.0
        for s in samples {
            arrival = max(arrival + 0.25, s.timestamp + 0.25)
            h.feed(s, arrival: arrival)
        }
        h.tick(arrival + 60)
        return h
    }

    @Test(arguments: [8..<44, 14..<40, 20..<44, 2..<30, 30..<42])
    func aBacklogAfterTheLiveFixGivesTheAlertsOfAnUploadOldestFirst(gap: Range<Int>) throws {
        let (oldestFirst, liveFirst) = Self.uploads(gap: gap)
        let expected = try Self.run(oldestFirst).alerts
        #expect(events(expected) == ["enter yard", "dwell yard", "exit yard"])
        let merged = try Self.run(liveFirst)
        #expect(merged.alerts.map(Fingerprint.init) == expected.map(Fingerprint.init))
        #expect(merged.engine.counters.late == gap.count)
        #expect(merged.engine.counters.stale == 0)
    }

    /// The same backlogs uploaded newest first, as many trackers do: merged once they have ended,
    /// they give the same alerts (judged one by one as they came, a visit's enter took the times of
    /// its last fixes, and with more than four nothing was alerted at all).
    @Test(arguments: [8..<44, 14..<40, 20..<44, 2..<30, 30..<42, 1..<46])
    func aBacklogNewestFirstAfterTheLiveFixGivesTheAlertsOfAnUploadOldestFirst(gap: Range<Int>) throws {
        let route = Self.route
        let newestFirst = Array(route[..<gap.lowerBound]) + [route[gap.upperBound]] + route[gap].reversed()
            + Array(route[(gap.upperBound + 1)...])
        let expected = try Self.run(route).alerts
        let merged = try Self.run(newestFirst)
        #expect(merged.alerts.map(Fingerprint.init) == expected.map(Fingerprint.init))
        #expect(merged.engine.counters.late == gap.count)
        #expect(merged.engine.counters.tooLate == 0)
    }

    /// A visit made wholly out of coverage, uploaded newest first after the live fix, and then
    /// nothing more: merged once the device has been quiet for `silent_confirm_s`.
    @Test(arguments: [3, 5, 8, 20])
    func aVisitInABacklogNewestFirstIsAlertedWithItsTrueTimes(insideFixes: Int) throws {
        let inside = (0..<insideFixes).map { at(0, t: T0 + 10 + Double($0) * 12) }
        let leftAt = T0 + 10 + Double(insideFixes) * 12 + 5
        let backlog = inside + [at(-600, t: leftAt), at(-600, t: leftAt + 25)]
        let (first, live) = (at(-600, t: T0), at(-600, t: leftAt + 300))
        let expected = try Self.run([first] + backlog + [live]).alerts
        #expect(events(expected).filter { $0 != "dwell yard" } == ["enter yard", "exit yard"])
        var h = try Harness([circle("yard", radius: 150, dwell: 60)])
        h.feed(first, arrival: live.timestamp)
        h.feed(live, arrival: live.timestamp + 1)
        for (k, sample) in backlog.reversed().enumerated() { h.feed(sample, arrival: live.timestamp + 2 + Double(k)) }
        let lastArrival = live.timestamp + 1 + Double(backlog.count)
        h.tick(lastArrival + 19)
        #expect(h.alerts.isEmpty, "quiet for less than silent_confirm_s: the backlog may go on")
        h.tick(lastArrival + 20)
        #expect(h.alerts.map(Fingerprint.init) == expected.map(Fingerprint.init))
        #expect(h.engine.insideFences(of: "truck-7").isEmpty)
    }

    /// Tours are judged on the merged order: two rounds of an ordered tour driven wholly out of
    /// coverage, uploaded newest first, give the events (and their place among the alerts) of the
    /// fixes in order. Judged at the end of the merge, they came after every alert, and the second
    /// round's visit was lost. The same behind a device's very first fix.
    @Test(arguments: [false, true])
    func toursInABacklogAreVisitedInTheMergedOrder(behindTheFirstFix: Bool) throws {
        let stops = [
            circle("s1", at: local(depot, x: 1_000, y: 0), radius: 200, dwell: 30),
            circle("s2", at: local(depot, x: 2_000, y: 0), radius: 200, dwell: 30),
        ]
        // Outside, then s1, between, s2, between, s1 again, outside: a fix every 10 s.
        let xs: [Double] = [0, 1_000, 1_000, 1_000, 1_000, 1_500, 2_000, 2_000, 2_000, 2_000, 1_500, 1_000, 1_000, 1_000, 1_000, 0]
        let backlog = xs.enumerated().map { at($0.element, t: T0 + 100 + 10 * Double($0.offset)) }
        let (before, live) = (behindTheFirstFix ? [] : [at(0, t: T0)], at(0, t: T0 + 400))
        func run(_ samples: [PositionSample]) throws -> Harness {
            var h = try Harness(stops)
            try h.engine.setTour(TourDefinition(id: "round", stops: ["s1", "s2"], ordered: true))
            h.feed(samples)
            h.feed([at(0, t: T0 + 405)])
            return h
        }
        let expected = try run(before + backlog + [live])
        #expect(events(expected.alerts).filter { $0.hasPrefix("stop_visited") } == ["stop_visited s1", "stop_visited s2", "stop_visited s1"])
        let merged = try run(before + [live] + backlog.reversed())
        #expect(merged.alerts.map(Fingerprint.init) == expected.alerts.map(Fingerprint.init))
        #expect(merged.engine.progress(device: "truck-7") == expected.engine.progress(device: "truck-7"))
    }

    /// A visit wholly in a backlog sent newest first, the device quiet after it: the sample before
    /// the gap, the live fix, the backlog, then `end` (a tick after the quiet, a fence removed,
    /// the engine's clean stop) against the same fixes in order.
    enum BacklogEnd: CaseIterable { case quiet, unrelatedFenceRemoved, cleanStop }

    @Test(arguments: BacklogEnd.allCases)
    func aBacklogIsMergedWhateverEndsIt(end: BacklogEnd) throws {
        let far = destination(depot, bearing: 0, meters: 5_000)
        let fences = [circle("yard", radius: 150), circle("other", at: far, radius: 150)]
        let xs: [Double] = [-600, -300, 0, 0, 0, 0, 0, 300, -600, -600, -600, -600]
        let backlog = xs.enumerated().map { at($0.element, t: T0 + 100 + 10 * Double($0.offset)) }
        let (first, live) = (at(-600, t: T0), at(-600, t: T0 + 400))
        var reference = try Harness(fences)
        reference.feed([first] + backlog + [live])
        #expect(events(reference.alerts) == ["enter yard", "exit yard"])

        var h = try Harness(fences)
        h.feed(first, arrival: T0)
        h.feed(live, arrival: T0 + 400)
        for (k, sample) in backlog.reversed().enumerated() { h.feed(sample, arrival: T0 + 401 + Double(k)) }
        #expect(h.alerts.isEmpty)
        var out: [Transition] = []
        let changes: [StateChange]
        switch end {
        case .quiet: changes = h.engine.tick(now: T0 + 412 + 20, into: &out)
        case .unrelatedFenceRemoved:
            // The epoch moves: held snapshots would name slots of other fences after it.
            let removal = h.engine.removeFence(id: "other", now: T0 + 413)
            out = removal.transitions
            changes = removal.changes
        case .cleanStop: changes = h.engine.mergeAllBacklogs(now: T0 + 413, into: &out)
        }
        h.alerts += out
        // In and out again: the inside set is as it was, and shown again at the newest sample, so
        // that the state's `at` is not older than the exit just alerted (it was the first fix's).
        #expect(changes == [StateChange(device: "truck-7", at: live.timestamp, lat: live.lat, lon: live.lon, onlyShownAgain: true)])
        #expect(h.alerts.map(Fingerprint.init) == reference.alerts.map(Fingerprint.init))
        #expect(h.engine.takeMergedBacklogs() == ["truck-7"])
    }

    /// A backlog longer than a device holds (`backlogSamples`: a fix a second of the window), newest
    /// first, two fixes a second: merged in parts of that many, so no fix goes unjudged; a visit
    /// within one part is alerted with its true times.
    @Test func aBacklogLongerThanWhatIsHeldIsMergedInParts() throws {
        let count = GeofenceEngine(settings: GeofenceSettings()).backlogSamples + 300
        let backlog = (0..<count).map { k in at((10..<100).contains(k) ? 0 : -600, t: T0 + 100 + Double(k) / 2) }
        let (first, live) = (at(-600, t: T0), at(-600, t: T0 + 100 + Double(count) / 2 + 60))
        var reference = try Harness([circle("yard", radius: 150)])
        reference.feed([first] + backlog + [live])
        #expect(events(reference.alerts) == ["enter yard", "exit yard"])
        var h = try Harness([circle("yard", radius: 150)])
        h.feed(first, arrival: T0)
        h.feed(live, arrival: live.timestamp)
        for sample in backlog.reversed() { h.feed(sample, arrival: live.timestamp + 1) }
        #expect(h.engine.counters.late == count)
        h.tick(live.timestamp + 1 + 20)
        #expect(h.alerts.map(Fingerprint.init) == reference.alerts.map(Fingerprint.init))
    }

    /// A backlog the window takes whole at a fix a second is merged whole, newest first: 1,100
    /// fixes, a visit among the oldest, behind a gap that started the device's history afresh.
    /// Held to 1,024, the oldest 76 were `too_late` and the visit was lost. (The matrix suite holds
    /// an hour: `anHourAtAFixASecondBehindTwoLiveFixesIsHeldWhole`.)
    @Test func aNewestFirstBacklogLongerThan1024FixesIsMergedWhole() throws {
        let count = 1_100
        let backlog = (0..<count).map { k in at((10..<50).contains(k) ? 0 : -600, t: T0 + 200 + Double(k)) }
        let before = [at(-600, t: T0), at(-600, t: T0 + 100)]
        let live = at(-600, t: T0 + 200 + Double(count) + 60)
        var reference = try Harness([circle("yard", radius: 150)])
        reference.feed(before + backlog + [live])
        #expect(events(reference.alerts) == ["enter yard", "exit yard"])
        var h = try Harness([circle("yard", radius: 150)])
        h.feed(before)
        h.feed(live, arrival: live.timestamp)
        for sample in backlog.reversed() { h.feed(sample, arrival: live.timestamp + 1) }
        #expect(h.engine.counters.late == count)
        #expect(h.engine.counters.tooLate == 0)
        h.tick(live.timestamp + 1 + 20)
        #expect(h.alerts.map(Fingerprint.init) == reference.alerts.map(Fingerprint.init))
    }

    /// A tracker reporting every 10 s (each report a gap of more than 5 s) sends its live fix, then
    /// `liveFixes - 1` more, then the backlog newest first: the live fix ended a gap over 1.5 times
    /// the one before (an outage), so the device still holds it, and the backlog gives the alerts
    /// of an upload oldest first.
    /// Started afresh at every gap, the history held the newest fix only: behind the second live
    /// fix the whole backlog was `too_late`.
    @Test(arguments: [2, 3, 6])
    func aBacklogBehindLaterLiveFixesOfASlowTrackerIsMerged(liveFixes: Int) throws {
        let before = [at(-600, t: T0), at(-600, t: T0 + 10)]
        // Out of coverage for 5 minutes: in the yard from +60 s to +150 s.
        let backlog = stride(from: 20.0, through: 300, by: 10).map { t in at((60...150).contains(t) ? 0 : -600, t: T0 + t) }
        let lives = (0..<liveFixes).map { k in at(-600, t: T0 + 310 + 10 * Double(k)) }
        try Self.expectMergedNewestFirst(backlog, behind: lives, after: before)
    }

    /// What a slow tracker holds after a longer gap is bounded: the live fix and the reports after
    /// it up to `samplesAfterAGap`, then one report again (a tracker reporting steadily every 10 s).
    @Test func aSlowTrackerHoldsAFewReportsAfterAGapThenOne() throws {
        var h = try Harness([circle("yard", radius: 150)])
        h.feed((0..<3).map { at(-600, t: T0 + 10 * Double($0)) })
        let held = { h.engine.histories[h.engine.devices.history[0]].held.count }
        #expect(held() == 1)
        var sizes: [Int] = []
        for k in 0..<20 {
            h.feed([at(-600, t: T0 + 300 + 10 * Double(k))])
            sizes.append(held())
        }
        #expect(sizes.max() == GeofenceEngine.samplesAfterAGap)
        #expect(sizes.last == 1, "\(sizes)")
    }

    /// A tracker reporting every second, out of coverage for 5 minutes (in the yard meanwhile),
    /// sends its backlog newest first behind `liveFixes` live fixes: no crossing made in the outage
    /// can be confirmed before `debounce_s` after the live fix, so the backlog behind any fix until
    /// then gives the alerts of an upload oldest first. Held to four reports, it was `too_late`
    /// behind the fifth. The last case misses 6 s of reports in between (a gap it is kept across).
    @Test(arguments: [Array(0..<2), Array(0..<5), Array(0..<12), Array(0...20), Array(0..<10) + Array(16...20)])
    func aBacklogBehindAFastTrackersLiveFixesWithinTheDebounceIsMerged(liveFixes: [Int]) throws {
        let before = (0...10).map { at(-600, t: T0 + Double($0)) }
        let backlog = (11..<310).map { t in at((60...150).contains(t) ? 0 : -600, t: T0 + Double(t)) }
        let lives = liveFixes.map { k in at(-600, t: T0 + 310 + Double(k)) }
        try Self.expectMergedNewestFirst(backlog, behind: lives, after: before)
    }

    /// The same tracker entered the yard in the outage and sends its live fixes from inside: the
    /// enter is pending from the live fix and confirmed by none before `debounce_s` after it, so a
    /// backlog behind the fix 19 s after it gives the enter at its true time (confirmed at the
    /// merge, later than an upload oldest first). Behind the fix 20 s after it, the live fixes
    /// confirmed the enter already, at the live fix's `at`, and the backlog says nothing for it.
    @Test(arguments: [19, 20])
    func aCrossingMadeInTheOutageIsMergedBehindAFastTrackersFixesUntilTheyConfirmIt(lastLive: Int) throws {
        let before = (0...10).map { at(-600, t: T0 + Double($0)) }
        let backlog = (11..<310).map { t in at(t >= 250 ? 0 : -600, t: T0 + Double(t)) }
        let lives = (0...lastLive).map { k in at(0, t: T0 + 310 + Double(k)) }
        var reference = try Harness([circle("yard", radius: 150)])
        reference.feed(before + backlog + lives)
        var h = try Harness([circle("yard", radius: 150)])
        h.feed(before + lives)
        for sample in backlog.reversed() { h.feed(sample, arrival: lives.last!.timestamp + 1) }
        h.tick(lives.last!.timestamp + 1 + 20)
        #expect(h.engine.counters.late == backlog.count)
        let key = { (t: Transition) in "\(t.event.rawValue) \(t.fenceID) at \(t.at - T0) seq \(t.seq)" }
        #expect(events(reference.alerts) == ["enter yard"])
        if lastLive < 20 {
            #expect(h.alerts.map(key) == reference.alerts.map(key))
        } else {
            #expect(events(h.alerts) == ["enter yard"])
            #expect(h.alerts.map(\.confirmedAt) == [T0 + 330], "\(h.alerts.map(key))")
            #expect(h.alerts.map(key) != reference.alerts.map(key), "its `at` between the outage's ends")
        }
    }

    /// Two of that tracker's live fixes swapped on the way are merged as a backlog of one; the
    /// outage's own backlog, behind later fixes, is still merged (any merge ending the outage's
    /// hold, it was `too_late`).
    @Test func twoLiveFixesSwappedOnTheWayLeaveTheOutageOpenForItsBacklog() throws {
        let before = (0...10).map { at(-600, t: T0 + Double($0)) }
        let backlog = (11..<310).map { t in at((60...150).contains(t) ? 0 : -600, t: T0 + Double(t)) }
        var lives = (0..<10).map { k in at(-600, t: T0 + 310 + Double(k)) }
        var reference = try Harness([circle("yard", radius: 150)])
        reference.feed(before + backlog + lives)
        lives.swapAt(2, 3)
        var h = try Harness([circle("yard", radius: 150)])
        h.feed(before + lives)
        for sample in backlog.reversed() { h.feed(sample, arrival: T0 + 321) }
        h.tick(T0 + 321 + 20)
        #expect(h.engine.counters.late == backlog.count + 1)
        #expect(h.engine.counters.tooLate == 0)
        #expect(h.alerts.map(Fingerprint.init) == reference.alerts.map(Fingerprint.init))
    }

    /// Its first fix after the outage too inaccurate to judge (a receiver that has just found the
    /// sky again), the next a second later ends the outage: gaps are measured from the last fix
    /// judged, so the backlog behind them is merged.
    @Test(arguments: [1, 3])
    func anInaccurateLiveFixLeavesTheOutageToTheNextFix(inaccurate: Int) throws {
        let before = (0...10).map { at(-600, t: T0 + Double($0)) }
        let backlog = (11..<310).map { t in at((60...150).contains(t) ? 0 : -600, t: T0 + Double(t)) }
        let lives = (0..<12).map { k in at(-600, t: T0 + 310 + Double(k), acc: k < inaccurate ? 500 : nil) }
        try Self.expectMergedNewestFirst(backlog, behind: lives, after: before)
    }

    /// The live fix after the outage too inaccurate to judge (a phone's position from the network),
    /// and the backlog of GPS fixes right behind it: nothing judged is newer than the backlog, so
    /// it is merged as an upload in order (with nothing held, it was `too_late`).
    @Test(arguments: [1, 2])
    func aBacklogRightBehindAnInaccurateLiveFixIsMerged(inaccurate: Int) throws {
        let before = (0...10).map { at(-600, t: T0 + Double($0)) }
        let backlog = (11..<310).map { t in at((60...150).contains(t) ? 0 : -600, t: T0 + Double(t)) }
        let lives = (0..<inaccurate).map { k in at(-600, t: T0 + 310 + Double(k), acc: 2_000) }
        try Self.expectMergedNewestFirst(backlog, behind: lives, after: before)
    }

    /// A device whose only fixes so far were too inaccurate to judge (a phone switched on out of
    /// coverage: its network position, then its backlog of GPS fixes): the backlog's oldest fix is
    /// its first sight (silent), and the rest are judged as an upload oldest first judges them (it
    /// was `too_late`, and the visit lost).
    @Test(arguments: [1, 2])
    func aBacklogBehindADevicesOnlyInaccurateFixesIsMerged(inaccurate: Int) throws {
        let backlog = (11..<310).map { t in at((60...150).contains(t) ? 0 : -600, t: T0 + Double(t)) }
        let lives = (0..<inaccurate).map { k in at(-600, t: T0 + 310 + Double(k), acc: 2_000) }
        try Self.expectMergedNewestFirst(backlog, behind: lives, after: [])
    }

    /// A device with regions but no anchor's time (a journal's record written before the anchor's
    /// time was kept) is not at its first sight: a late fix says nothing, and its regions stay.
    /// Taken for first sight, the merge set them again from the late fix, silently.
    @Test func aDeviceWithRegionsButNoAnchorTimeDropsALateFix() throws {
        var before = try Harness([circle("yard", radius: 150)])
        before.feed((0...30).map { at(0, t: T0 + Double($0)) })
        before.tick(T0 + 60)
        var record = try #require(before.engine.deviceRecord(for: "truck-7"))
        #expect(record.regions.map(\.state) == [.inside])
        record.anchorTime = nil
        var h = try Harness([circle("yard", radius: 150)])
        h.engine.restore(record)
        h.feed(at(-600, t: T0 + 10), arrival: T0 + 100)
        #expect(h.outcomes.last?.status == .tooLate)
        h.tick(T0 + 200)
        #expect(h.engine.deviceRecord(for: "truck-7")?.regions == record.regions)
        #expect(h.alerts.isEmpty)
    }

    /// Its first accurate fix the live one after the network's: that fix is held as a first fix
    /// is, and the backlog behind it merged; accurate live fixes sent while the backlog arrives
    /// join it (a part merged as soon as it had no hole settled the exit, and the enter before it
    /// was `too_late`). Sent before the backlog, more than one is the limit "Late samples" states.
    @Test(arguments: zip(
        [[2_000, 0], [2_000, 2_000, 0], [2_000, 0], [2_000, 0, 0, 0], [2_000, 2_000, 0, 0, 0]] as [[Float]],
        [false, false, true, true, true]))
    func aBacklogBehindAnInaccurateFirstFixAndAccurateOnesIsMerged(accuracies: [Float], interleaved: Bool) throws {
        let backlog = (11..<310).map { t in at((60...150).contains(t) ? 0 : -600, t: T0 + Double(t)) }
        let lives = accuracies.enumerated().map { k, acc in
            at(-600, t: T0 + 310 + Double(k), acc: acc > 0 ? Double(acc) : nil)
        }
        var reference = try Harness([circle("yard", radius: 150)])
        reference.feed(backlog + lives)
        #expect(events(reference.alerts) == ["enter yard", "exit yard"])
        var h = try Harness([circle("yard", radius: 150)])
        let arrival = T0 + 320
        if interleaved {
            // The network fix, then the backlog newest first with the live GPS fixes among it.
            h.feed(lives[0], arrival: arrival)
            let rest = Array(lives.dropFirst())
            for (k, sample) in backlog.reversed().enumerated() {
                h.feed(sample, arrival: arrival)
                if k % 100 == 0, k / 100 < rest.count { h.feed(rest[k / 100], arrival: arrival) }
            }
            for sample in rest.dropFirst((backlog.count + 99) / 100) { h.feed(sample, arrival: arrival) }
        } else {
            for sample in lives { h.feed(sample, arrival: arrival) }
            for sample in backlog.reversed() { h.feed(sample, arrival: arrival) }
        }
        #expect(h.engine.counters.late == backlog.count)
        #expect(h.engine.counters.tooLate == 0)
        h.tick(arrival + 20)
        #expect(h.alerts.map(Fingerprint.init) == reference.alerts.map(Fingerprint.init))
    }

    /// The same device seen first inside the yard by its backlog: first sight is silent, so the
    /// merge gives the exit alone, as in order; oldest first behind the live fix too.
    @Test(arguments: [false, true])
    func aFirstSightInsideFromABacklogIsSilent(oldestFirst: Bool) throws {
        let backlog = (11..<310).map { t in at(t < 150 ? 0 : -600, t: T0 + Double(t)) }
        let live = at(-600, t: T0 + 310, acc: 2_000)
        var reference = try Harness([circle("yard", radius: 150)])
        reference.feed(backlog + [live])
        #expect(events(reference.alerts) == ["exit yard"])
        var h = try Harness([circle("yard", radius: 150)])
        h.feed([live])
        for sample in oldestFirst ? backlog : backlog.reversed() { h.feed(sample, arrival: T0 + 311) }
        #expect(h.engine.counters.late == backlog.count)
        h.tick(T0 + 311 + 20)
        #expect(h.alerts.map(Fingerprint.init) == reference.alerts.map(Fingerprint.init))
        // Then the next crossing is judged from the backlog's newest fix, as in order.
        h.feed((320...360).map { at(0, t: T0 + Double($0)) })
        reference.feed((320...360).map { at(0, t: T0 + Double($0)) })
        #expect(events(h.alerts) == ["exit yard", "enter yard"])
        #expect(h.alerts.map(Fingerprint.init) == reference.alerts.map(Fingerprint.init))
    }

    /// Silence confirmed the enter pending at the anchor during the outage: a fix of the outage
    /// behind an inaccurate live fix would judge the yard again with no mark to say it is
    /// settled, so it is dropped (an alert is never withdrawn, nor contradicted by what came
    /// before it). An inaccurate late fix makes no history either.
    @Test func aBacklogBehindAnInaccurateFixAfterASilentConfirmationIsTooLate() throws {
        var h = try Harness([circle("yard", radius: 150)])
        h.feed([at(-600, t: T0), at(-600, t: T0 + 1), at(0, t: T0 + 2)])
        h.tick(T0 + 60)
        #expect(events(h.alerts) == ["enter yard"])
        h.feed([at(0, t: T0 + 300, acc: 2_000)])
        h.feed([at(-600, t: T0 + 100, acc: 2_000)])
        #expect(h.outcomes.last?.status == .tooLate)
        #expect(h.engine.devices.history[0] < 0)
        h.feed([at(-600, t: T0 + 150)])
        #expect(h.outcomes.last?.status == .tooLate)
        h.feed((301...330).map { at(0, t: T0 + Double($0)) })
        #expect(events(h.alerts) == ["enter yard"])
    }

    /// A fence added during the outage: the late fix behind the inaccurate live fix is judged
    /// against it (outside), so entering it at the next fix is an enter, as in order.
    @Test func aMergedFixNewerThanTheAnchorKnowsTheFencesAddedMeanwhile() throws {
        let inOrder = [at(-600, t: T0), at(-600, t: T0 + 1), at(-600, t: T0 + 200, acc: 2_000), at(-300, t: T0 + 150)]
            + (201...240).map { at(0, t: T0 + Double($0)) }
        var h = try Harness([circle("far", at: local(depot, x: 5_000, y: 0), radius: 150)])
        h.feed(Array(inOrder[0..<2]))
        try h.engine.setFence(circle("yard", radius: 150))
        h.feed(Array(inOrder[2...]))
        #expect(h.engine.counters.late == 1)
        #expect(events(h.alerts) == ["enter yard"])
    }

    /// A late fix newer than the device's last accurate one (it came behind an inaccurate fix) is
    /// the last one judged once merged: the next crossing is interpolated from it, as an upload in
    /// order gives (from the fix before it, the enter's `at` was 2 s early).
    @Test func aLateFixBehindAnInaccurateOneAnchorsTheNextCrossing() throws {
        let inOrder = [at(-600, t: T0), at(-600, t: T0 + 100), at(-300, t: T0 + 120), at(-300, t: T0 + 130, acc: 500)]
            + (131...160).map { at(0, t: T0 + Double($0)) }
        var reference = try Harness([circle("yard", radius: 150)])
        reference.feed(inOrder)
        #expect(events(reference.alerts) == ["enter yard"])
        var h = try Harness([circle("yard", radius: 150)])
        h.feed([inOrder[0], inOrder[1], inOrder[3], inOrder[2]] + inOrder[4...])
        #expect(h.engine.counters.late == 1)
        #expect(h.alerts.map(Fingerprint.init) == reference.alerts.map(Fingerprint.init))
    }

    /// What that tracker holds is bounded: every report for a minute after the live fix, at most a
    /// report a second of the debounce beside eight, then nothing (a steady stream). A fix of the
    /// outage sent after that is `too_late`.
    @Test func aFastTrackerHoldsItsReportsForAMinuteAfterAnOutageThenNone() throws {
        var h = try Harness([circle("yard", radius: 150)])
        h.feed((0...10).map { at(-600, t: T0 + Double($0)) })
        let held = { () -> Int in
            let index = h.engine.devices.history[0]
            return index >= 0 ? h.engine.histories[index].held.count : 0
        }
        var sizes: [Int] = []
        for k in 0..<80 {
            h.feed([at(-600, t: T0 + 310 + Double(k))])
            sizes.append(held())
        }
        #expect(sizes.max() == h.engine.heldAfterAnOutage, "eight and a report a second of the debounce: \(sizes)")
        #expect(sizes.suffix(10) == Array(repeating: 0, count: 10), "\(sizes)")
        h.feed([at(0, t: T0 + 100)])
        #expect(h.outcomes.last?.status == .tooLate)
    }

    /// Once the outage's backlog has come and been merged, the same tracker holds no more than a
    /// steady one: its four, then nothing.
    @Test func aFastTrackerStopsHoldingOnceItsBacklogIsMerged() throws {
        var h = try Harness([circle("yard", radius: 150)])
        h.feed((0...10).map { at(-600, t: T0 + Double($0)) })
        h.feed([at(-600, t: T0 + 310)])
        h.feed((11..<310).reversed().map { at(-600, t: T0 + Double($0)) })
        var sizes: [Int] = []
        for k in 1..<10 {
            h.feed([at(-600, t: T0 + 310 + Double(k))])
            let index = h.engine.devices.history[0]
            sizes.append(index >= 0 ? h.engine.histories[index].held.count : 0)
        }
        #expect(h.engine.counters.late == 299)
        #expect(sizes.max()! <= 5 && sizes.last == 0, "\(sizes)")
    }

    /// Reports every 30 s ±20% (`jittered`): each gap is a little longer or shorter than the one
    /// before, and none is an outage's (`outageRatio`), so the device holds its newest report
    /// alone. Kept across every shorter gap, it held 5.2 reports on average and often eight.
    @Test func aTrackerWhoseReportsJitterHoldsItsNewestReportAlone() throws {
        var h = try Harness([circle("yard", radius: 150)])
        let times = Self.jittered(from: T0, count: 200, interval: 30)
        var sizes: [Int] = []
        for t in times {
            h.feed([at(-600, t: t)])
            let index = h.engine.devices.history[0]
            sizes.append(index >= 0 ? h.engine.histories[index].held.count : 0)
        }
        // The first report is held in the device's columns; the second is held with it.
        #expect(sizes.prefix(2) == [0, 2])
        #expect(Set(sizes.dropFirst(2)) == [1], "\(sizes)")
    }

    /// The same tracker out of coverage for 5 minutes, in the yard meanwhile: a backlog sent
    /// newest first behind three live fixes is merged, as an upload oldest first. (Its outage
    /// hides ten reports: what its jitter must not do is make the device start afresh.)
    @Test func aBacklogBehindLaterLiveFixesOfAJitteringTrackerIsMerged() throws {
        let times = Self.jittered(from: T0, count: 23, interval: 30)
        // Reports 0-9 before the outage, 10-19 its backlog (in the yard at 13-16), then live ones.
        let fixes = times.enumerated().map { k, t in at((13...16).contains(k) ? 0 : -600, t: t) }
        let (before, backlog, lives) = (Array(fixes[..<10]), Array(fixes[10..<20]), Array(fixes[20..<23]))
        try Self.expectMergedNewestFirst(backlog, behind: lives, after: before)
    }

    /// Where `outageRatio` draws the line: reports `gaps` apart, the longest taken for an outage
    /// when it is more than 1.5 times the gap before it; then a fix from within it sent behind the
    /// last report. Decided once at the outage, a missed report among reports 24-36 s apart is
    /// merged behind any later report shorter than its gap (decided at each report, it was lost at
    /// the 36 s one); the last case is the loss the rule accepts: a gap of 48 s hiding a report
    /// after one of 36 s is taken for jitter.
    @Test(arguments: [
        ([10.0, 10, 15, 10], SampleOutcome.Status.tooLate),
        ([10.0, 10, 15.5, 10], .late),
        ([30.0, 30, 60, 30, 30, 30], .late),
        ([24.0, 24, 48, 36, 30, 36], .late),
        ([30.0, 36, 48, 24], .tooLate),
    ])
    func aFixFromAnOutageBehindLaterReports(gaps: [Double], expected: SampleOutcome.Status) throws {
        var h = try Harness([circle("yard", radius: 150)])
        var t = T0
        var reports = [at(-600, t: t)]
        for gap in gaps {
            t += gap
            reports.append(at(-600, t: t))
        }
        h.feed(reports)
        let outage = gaps.indices.max { gaps[$0] < gaps[$1] }!
        h.feed(at(-500, t: reports[outage].timestamp + gaps[outage] / 2), arrival: t + 1)
        #expect(h.outcomes.last?.status == expected)
    }

    /// After an outage the jittering tracker holds the live fix and the reports after it, up to
    /// `samplesAfterAGap`; once the live fix has gone, its jitter alone holds nothing more.
    @Test func aJitteringTrackerHoldsItsReportsAfterAnOutageThenOneAgain() throws {
        var h = try Harness([circle("yard", radius: 150)])
        let times = Self.jittered(from: T0, count: 50, interval: 30)
        var sizes: [Int] = []
        for (k, t) in times.enumerated() where !(10..<20).contains(k) {
            h.feed([at(-600, t: t)])
            let index = h.engine.devices.history[0]
            sizes.append(index >= 0 ? h.engine.histories[index].held.count : 0)
        }
        #expect(Array(sizes[10..<18]) == Array(1...8), "\(sizes)")
        #expect(Set(sizes[19...]) == [1], "\(sizes)")
    }

    /// A device's first fix, then an outage of 5 minutes (the gap before it unknown: taken for
    /// one), then reports every 10 s: a fix of the outage sent behind the third is merged.
    @Test func aFixOfAnOutageAfterTheFirstFixBehindLaterReportsIsMerged() throws {
        var h = try Harness([circle("yard", radius: 150)])
        h.feed([at(-600, t: T0), at(-600, t: T0 + 300), at(-600, t: T0 + 310), at(-600, t: T0 + 320)])
        h.feed(at(-500, t: T0 + 150), arrival: T0 + 321)
        #expect(h.outcomes.last?.status == .late)
    }

    /// An outage's backlog in two parts, oldest first, with live reports between them: the first
    /// part's merge keeps the live fix that ended the outage (its samples trimmed around it), and
    /// the second part, behind two more reports, is merged too.
    @Test func aBacklogInTwoPartsBehindLiveReportsIsMergedWhole() throws {
        let before = [at(-600, t: T0), at(-600, t: T0 + 10)]
        let backlog = stride(from: 20.0, through: 300, by: 10).map { t in at((160...250).contains(t) ? 0 : -600, t: T0 + t) }
        let lives = [310.0, 320, 330, 340, 350].map { at(-600, t: T0 + $0) }
        var reference = try Harness([circle("yard", radius: 150)])
        reference.feed(before + backlog + lives)
        #expect(events(reference.alerts) == ["enter yard", "exit yard"])
        var h = try Harness([circle("yard", radius: 150)])
        h.feed(before + Array(lives[..<2]))
        for sample in backlog[..<14] { h.feed(sample, arrival: T0 + 321) }
        // Quiet for `silent_confirm_s`: the first part is merged.
        h.tick(T0 + 321 + 25)
        h.feed(Array(lives[2..<4]), lag: 30)
        for sample in backlog[14...] { h.feed(sample, arrival: T0 + 371) }
        h.feed([lives[4]], lag: 30)
        h.tick(T0 + 410 + 25)
        #expect(h.engine.counters.tooLate == 0)
        #expect(h.engine.counters.late == backlog.count)
        #expect(events(h.alerts) == ["enter yard", "exit yard"])
    }

    /// A tracker reporting every 30 s moving and every 2 minutes parked: its first parked report
    /// ends a gap four times the one before, which may be an outage; the next parked one does
    /// not, and the device holds one report, also once it moves again (it held eight after each
    /// stop, each moving report's gap shorter than the parked ones).
    @Test func aParkedTrackerHoldsOneReportAfterItsFirstParkedOne() throws {
        var h = try Harness([circle("yard", radius: 150)])
        let moving: [Double] = (0..<6).map { k in T0 + 30 * Double(k) }
        let parked: [Double] = (1..<8).map { k in T0 + 150 + 120 * Double(k) }
        let movingAgain: [Double] = (1..<10).map { k in T0 + 990 + 30 * Double(k) }
        let times = moving + parked + movingAgain
        var sizes: [Int] = []
        for t in times {
            h.feed([at(-600, t: t)])
            let index = h.engine.devices.history[0]
            sizes.append(index >= 0 ? h.engine.histories[index].held.count : 0)
        }
        #expect(Set(sizes.suffix(16)) == [1], "\(sizes)")
    }

    /// A first sample held keeps its speed and fence epoch, and its accuracy is the anchor's: the
    /// history made of it, when a sample after a gap comes (the anchor columns already that
    /// sample's) or when a late one does, holds the first sample's own.
    @Test func aFirstSampleHeldKeepsItsAccuracyAndSpeedIntoItsHistory() throws {
        for late in [false, true] {
            var h = try Harness([circle("yard", radius: 150)])
            h.feed([at(-600, t: T0, acc: 40, speed: 12.5)])
            #expect(h.engine.devices.history[0] == DeviceTable.firstSampleHeld)
            // Behind it, or after a gap.
            h.feed([late ? at(-650, t: T0 - 30, acc: 5, speed: 3) : at(-500, t: T0 + 60, acc: 5, speed: 3)])
            #expect(h.outcomes.last?.status == (late ? .late : .accepted))
            let index = h.engine.devices.history[0]
            try #require(index >= 0)
            let held = h.engine.histories[index].held
            let first = try #require(held.first { $0.timestamp == T0 })
            #expect(first.accuracy == 40 && first.speed == 12.5, "\(first.sample)")
            #expect(held.first { $0.timestamp != T0 }?.accuracy == 5)
        }
    }

    /// Sends `before` and `lives`, then `backlog` newest first (a visit to the yard in it): the
    /// alerts are those of the fixes sent oldest first.
    static func expectMergedNewestFirst(
        _ backlog: [PositionSample], behind lives: [PositionSample], after before: [PositionSample]
    ) throws {
        var reference = try Harness([circle("yard", radius: 150)])
        reference.feed(before + backlog + lives)
        #expect(events(reference.alerts) == ["enter yard", "exit yard"])
        var h = try Harness([circle("yard", radius: 150)])
        h.feed(before + lives)
        for sample in backlog.reversed() { h.feed(sample, arrival: lives.last!.timestamp + 1) }
        #expect(h.engine.counters.late == backlog.count)
        h.tick(lives.last!.timestamp + 1 + 20)
        #expect(h.alerts.map(Fingerprint.init) == reference.alerts.map(Fingerprint.init))
    }

    /// `count` report times `interval` s ±20% apart, the same every run.
    static func jittered(from start: Double, count: Int, interval: Double) -> [Double] {
        var random = SeededRandom(seed: 30)
        var t = start
        return (0..<count).map { _ in
            t += interval * (0.8 + 0.4 * random.nextUnit())
            return t
        }
    }

    /// Reports every 10 s, each a gap of more than 5 s, with a coverage gap of 3 minutes: a fix of
    /// the gap sent after the live fix and two more reports is still merged (it was `too_late`:
    /// the history started afresh at the second report).
    @Test func aFixOfTheGapSentAfterLaterReportsIsMerged() throws {
        var h = try Harness([circle("yard", radius: 150)])
        h.feed([at(-600, t: T0), at(-600, t: T0 + 10), at(-600, t: T0 + 20)])
        h.feed([at(-600, t: T0 + 200), at(-600, t: T0 + 210), at(-600, t: T0 + 220)])
        h.feed([at(-500, t: T0 + 100)])
        #expect(h.outcomes.last?.status == .late)
        #expect(h.engine.counters.tooLate == 0)
    }

    @Test func aVisitWhollyOutOfCoverageIsAlertedLateWithItsTrueTimes() throws {
        let (oldestFirst, liveFirst) = Self.uploads(gap: 9..<44)
        let expected = try Self.run(oldestFirst).alerts
        var h = try Harness([circle("yard", radius: 150, dwell: 60)])
        // Up to the live fix: outside, and then outside again: nothing to say yet.
        h.feed(Array(liveFirst[0..<10]))
        #expect(h.alerts.isEmpty)
        h.feed(Array(liveFirst[10...]))
        #expect(h.alerts.map(Fingerprint.init) == expected.map(Fingerprint.init))
        #expect(h.engine.insideFences(of: "truck-7").isEmpty)
    }

    @Test func windowZeroRestoresTheOldOrderRule() throws {
        let (_, liveFirst) = Self.uploads(gap: 8..<44)
        let h = try Self.run(liveFirst, settings: GeofenceSettings(lateWindowSeconds: 0))
        #expect(h.alerts.isEmpty)
        #expect(h.engine.counters.stale == 36)
        #expect(h.engine.counters.late == 0)
    }

    @Test func olderThanTheWindowIsTooLateAndARepeatIsStale() throws {
        var h = try Harness(settings: GeofenceSettings(lateWindowSeconds: 30), [circle("yard", radius: 150)])
        h.feed([at(-600, t: T0), at(-550, t: T0 + 100)])
        h.feed([at(-500, t: T0 + 60)])  // 40 s behind: too late
        h.feed([at(-500, t: T0 + 80)])  // merged
        h.feed([at(-500, t: T0 + 80)])  // the same time again: a repeat
        h.feed([at(-500, t: T0 + 100)])  // the latest's own time
        #expect(h.outcomes.map(\.status) == [.accepted, .accepted, .tooLate, .late, .stale, .stale])
        #expect(h.engine.counters.tooLate == 1)
        #expect(h.engine.counters.late == 1)
        #expect(h.engine.counters.stale == 2)
    }

    @Test func aLateSampleOlderThanAConfirmedChangeSaysNothingForThatFence() throws {
        var h = try Harness([circle("yard", radius: 150)])
        // Outside, then inside from +10 s: the enter is confirmed at +30 s.
        h.feed([at(-400, t: T0), at(0, t: T0 + 10), at(0, t: T0 + 20), at(0, t: T0 + 30)])
        #expect(events(h.alerts) == ["enter yard"])
        // Far outside at +25 s, before the confirmation: nothing, not even a pending exit.
        h.feed([at(-900, t: T0 + 25)])
        #expect(h.outcomes.last?.status == .late)
        #expect(h.engine.pendingChange(of: "truck-7", in: "yard") == nil)
        h.feed([at(0, t: T0 + 60)])
        h.tick(T0 + 200)
        #expect(events(h.alerts) == ["enter yard"])
        #expect(h.engine.seq(of: "truck-7") == 1)
    }

    @Test func aBacklogIsMergedWhenANewerSampleEndsIt() throws {
        // Outside, then the live fix inside at +60 s, then a backlog inside from +10 s to +30 s:
        // +30 s is the first to reach t0 + 20 s, as an upload oldest first gives.
        var h = try Harness([circle("yard", radius: 150)])
        h.feed([at(-400, t: T0), at(0, t: T0 + 60)])
        h.feed([at(0, t: T0 + 10), at(0, t: T0 + 20), at(0, t: T0 + 30)])
        #expect(h.alerts.isEmpty)  // held: the rest of the backlog may come yet
        #expect(h.outcomes.suffix(3).map(\.status) == [.late, .late, .late])
        h.feed([at(0, t: T0 + 65)])
        let enter = try #require(h.alerts.first)
        #expect(enter.event == .enter)
        #expect(enter.confirmedAt == T0 + 30)
        #expect(abs(enter.at - (T0 + 10 * 250.0 / 400)) < 0.5)
    }

    @Test func aChangeLeftWaitingIsConfirmedAtItsConfirmerBySilence() throws {
        var h = try Harness([circle("yard", radius: 150)])
        h.feed([at(-400, t: T0), at(0, t: T0 + 60)])
        h.feed(at(0, t: T0 + 10), arrival: T0 + 61)
        #expect(h.alerts.isEmpty)
        h.tick(T0 + 61 + 20)
        let enter = try #require(h.alerts.first)
        #expect(enter.confirmedAt == T0 + 60)
        #expect(h.engine.insideFences(of: "truck-7") == ["yard"])
    }

    @Test func aLateSampleInsideAnotherFenceMakesAVisitThere() throws {
        let far = destination(depot, bearing: 0, meters: 3_000)
        var h = try Harness([circle("yard", radius: 150), circle("north", at: far, radius: 150)])
        h.feed([at(0, t: T0), at(0, t: T0 + 300)])
        // The backlog: a stop at the northern fence between the two.
        let stop = (0..<8).map { sample(far, t: T0 + 100 + 5 * Double($0)) }
        h.feed(stop)
        h.tick(T0 + 400)
        var inOrder = try Harness([circle("yard", radius: 150), circle("north", at: far, radius: 150)])
        inOrder.feed([at(0, t: T0)] + stop + [at(0, t: T0 + 300)])
        inOrder.tick(T0 + 400)
        // It left the yard for the stop, and came back.
        #expect(events(inOrder.alerts) == ["enter north", "exit yard", "exit north", "enter yard"])
        #expect(h.alerts.map(Fingerprint.init) == inOrder.alerts.map(Fingerprint.init))
        #expect(h.engine.insideFences(of: "truck-7") == ["yard"])
    }

    @Test func aFenceRemovedSinceVoidsWhatWasHeld() throws {
        var h = try Harness([circle("yard", radius: 150), circle("other", at: destination(depot, bearing: 90, meters: 5_000), radius: 100)])
        h.feed([at(-400, t: T0), at(-400, t: T0 + 60)])
        h.engine.removeFence(id: "other", now: T0 + 61)
        h.feed([at(0, t: T0 + 30)])
        #expect(h.outcomes.last?.status == .tooLate)
    }

    /// A tracker's very first message may be its live fix with its backlog behind it. The first fix
    /// is held at no cost (`DeviceTable.firstSampleHeld`) and merged with the backlog as an upload
    /// oldest first gives: the backlog's oldest fix is the device's first sight. Gaps: the whole
    /// visit, the drive in to the live fix parked inside (first sight inside is silent: without the
    /// merge it had no enter), and into the stay.
    @Test(arguments: [0..<44, 0..<12, 0..<30, 0..<3], [false, true])
    func aBacklogBehindADevicesFirstFixGivesTheAlertsOfAnUploadOldestFirst(gap: Range<Int>, newestFirst: Bool) throws {
        let route = Self.route
        let backlog = Array(route[gap])
        let firstFixLive = [route[gap.upperBound]] + (newestFirst ? backlog.reversed() : backlog)
            + Array(route[(gap.upperBound + 1)...])
        let expected = try Self.run(route).alerts
        #expect(events(expected).first == "enter yard")
        let merged = try Self.run(firstFixLive)
        #expect(merged.alerts.map(Fingerprint.init) == expected.map(Fingerprint.init))
        #expect(merged.engine.counters.late == gap.count)
        #expect(merged.engine.counters.tooLate == 0)
    }

    /// The backlog's oldest fix is the device's first sight, silent when inside (rule 3): a device
    /// switched on parked in the yard, its first message sent after it drove out, has no enter (its
    /// dwell counts from its first sight).
    @Test(arguments: [false, true])
    func theOldestFixOfABacklogBehindAFirstFixIsFirstSight(newestFirst: Bool) throws {
        let route = Array(Self.route[12...])
        let backlog = Array(route[..<30])
        let expected = try Self.run(route).alerts
        #expect(events(expected) == ["dwell yard", "exit yard"])
        let merged = try Self.run([route[30]] + (newestFirst ? backlog.reversed() : backlog) + route[31...])
        #expect(merged.alerts.map(Fingerprint.init) == expected.map(Fingerprint.init))
    }

    /// The first fix is held in the device's columns: no history until a late sample comes. A next
    /// fix within `gapSeconds` (a steady stream) ends the hold; one after a gap starts a history
    /// from the first fix, so a backlog may still come behind both.
    @Test(arguments: [2.0, 30.0])
    func aFirstFixIsHeldWithoutAHistoryUntilABacklogMayNeedIt(next: Double) throws {
        var h = try Harness([circle("yard", radius: 150)])
        h.feed([at(0, t: T0)])
        #expect(h.engine.devices.history[0] == DeviceTable.firstSampleHeld)
        #expect(h.engine.histories.items.isEmpty)
        h.feed([at(0, t: T0 + next)])
        let steady = next <= GeofenceEngine.gapSeconds
        #expect(h.engine.devices.history[0] == (steady ? -1 : 0))
        h.feed([at(-400, t: T0 - 30), at(-400, t: T0 - 20)])
        #expect(h.outcomes.suffix(2).map(\.status) == (steady ? [.tooLate, .tooLate] : [.late, .late]))
        h.feed([at(0, t: T0 + next + 30)])
        h.tick(T0 + next + 60)
        #expect(events(h.alerts) == (steady ? [] : ["enter yard"]))
    }

    /// `late_window_s: 0`, the older rule: nothing is held, a first fix neither.
    @Test func aLateSampleBehindAFirstFixWithWindowZeroIsStale() throws {
        var h = try Harness(settings: GeofenceSettings(lateWindowSeconds: 0), [circle("yard", radius: 150)])
        h.feed([at(0, t: T0), at(-400, t: T0 - 30)])
        #expect(h.engine.devices.history[0] == -1)
        #expect(h.outcomes.map(\.status) == [.accepted, .stale])
    }

    /// Coverage lost inside the yard before its dwell; out of coverage the truck left and came back;
    /// the live fix, inside, alerts the first stay's dwell. A dwell changes no state, so the backlog
    /// behind it still gives the exit, the enter and the second stay's dwell with their true times
    /// (it gave nothing: the dwell settled the fence); the first stay's dwell is not repeated.
    @Test(arguments: [false, true])
    func aDwellAtTheLiveFixLeavesTheBacklogsExitAndReturnToBeMerged(newestFirst: Bool) throws {
        let covered = [at(-600, t: T0), at(0, t: T0 + 10), at(0, t: T0 + 20), at(0, t: T0 + 30)]
        let backlog = [0.0, 0, -600, -600, -600, -600, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0].enumerated().map { k, x in
            at(x, t: T0 + 40 + 10 * Double(k))
        }
        let live = at(0, t: T0 + 300)
        func key(_ t: Transition) -> String { "\(t.event.rawValue) at \(t.at - T0) confirmed \(t.confirmedAt - T0)" }
        let expected = try Self.run(covered + backlog + [live]).alerts
        #expect(events(expected) == ["enter yard", "exit yard", "enter yard", "dwell yard"])
        let merged = try Self.run(covered + [live] + (newestFirst ? backlog.reversed() : backlog))
        #expect(events(merged.alerts) == ["enter yard", "dwell yard", "exit yard", "enter yard", "dwell yard"])
        #expect(merged.alerts.first.map(key) == expected.first.map(key))
        #expect(merged.alerts.dropFirst(2).map(key) == expected.dropFirst().map(key))
        #expect(merged.alerts.map(\.seq) == [1, 2, 3, 4, 5])
        #expect(merged.engine.insideFences(of: "truck-7") == ["yard"])
    }

    /// A backlog that stayed inside, behind a live fix that alerted the stay's dwell: no second dwell.
    @Test func aStaysDwellAlertedAtTheLiveFixIsNotRepeatedByItsBacklog() throws {
        let covered = [at(-600, t: T0), at(0, t: T0 + 10), at(0, t: T0 + 20), at(0, t: T0 + 30)]
        let backlog = (0..<20).map { at(0, t: T0 + 40 + 10 * Double($0)) }
        let merged = try Self.run(covered + [at(0, t: T0 + 300)] + backlog.reversed())
        #expect(events(merged.alerts) == ["enter yard", "dwell yard"])
        #expect(merged.engine.counters.late == 20)
    }

    /// What identifies an alert for these comparisons.
    struct Fingerprint: Equatable, CustomStringConvertible {
        let event: String, fence: String, at: Double, confirmedAt: Double, seq: UInt64, lat: Double, lon: Double
        init(_ t: Transition) {
            (event, fence, at, confirmedAt, seq, lat, lon) = (t.event.rawValue, t.fenceID, t.at, t.confirmedAt, t.seq, t.lat, t.lon)
        }
        var description: String { "\(event) \(fence) at \(at - T0) confirmed \(confirmedAt - T0) seq \(seq)" }
    }
}
