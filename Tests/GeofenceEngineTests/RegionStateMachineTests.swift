import Foundation
import Testing

@testable import GeofenceEngine
import SeededRandom

/// The region state machine of docs/rules.md "The rules", one test per rule, with exact numbers.
/// Defaults throughout: debounce 20 s, hysteresis 10 m, max accuracy 100 m, silent confirm 20 s.
@Suite("Region state machine")
struct RegionStateMachineTests {
    // MARK: Clean crossing

    /// A truck at 10 m/s, one sample every 5 s, straight through a 200 m circle from 420 m west.
    /// Distances from the centre: 420, 370, ..., so the boundary (200 m) falls between samples
    /// 4 (20 m outside) and 5 (30 m inside), and between 12 (20 m inside) and 13 (30 m outside).
    @Test func cleanEnterAndExit_confirmedAtFirstEvidenceAfterDebounce_atInterpolatedBySignedDistance() throws {
        var h = try Harness([circle("wdf01", radius: 200, name: "SAP SE WDF01")])
        let path = driveThrough(startingAt: 420, speed: 10, interval: 5, count: 22)

        // Samples 0...8: outside known at once, then a pending enter with t0 = sample 5.
        #expect(h.feed(Array(path[0...8])).isEmpty)
        let pending = try #require(h.engine.pendingChange(of: "truck-7", in: "wdf01"))
        #expect(pending.evidenceSince == T0 + 25)
        #expect(abs(pending.crossedAt - (T0 + 22)) < 1e-3)
        #expect(h.engine.state(of: "truck-7", in: "wdf01") == .outside)

        // Sample 9 (t0 + 20 s) confirms.
        let enter = try #require(h.feed([path[9]]).first)
        #expect(enter.event == .enter)
        #expect(enter.device == "truck-7")
        #expect(enter.fenceID == "wdf01")
        #expect(enter.fenceName == "SAP SE WDF01")
        #expect(enter.confirmedAt == T0 + 45)
        #expect(abs(enter.at - (T0 + 20 + 5 * 20.0 / 50)) < 1e-3)  // 20 m out, 30 m in: 2/5 of the way
        #expect(enter.lat == path[9].lat && enter.lon == path[9].lon)
        #expect(enter.radiusMeters == 200)
        #expect(enter.seq == 1)
        #expect(enter.durationSeconds == nil && enter.dwellSeconds == nil && enter.reason == nil)
        #expect(h.engine.insideFences(of: "truck-7") == ["wdf01"])

        #expect(h.feed(Array(path[10...16])).isEmpty)
        let exit = try #require(h.feed([path[17]]).first)
        #expect(exit.event == .exit)
        #expect(exit.confirmedAt == T0 + 85)  // t0 = sample 13 at +65
        #expect(abs(exit.at - (T0 + 60 + 5 * 20.0 / 50)) < 1e-3)
        #expect(exit.durationSeconds == exit.at - enter.at)
        #expect(abs(exit.durationSeconds! - 40) < 1e-3)
        #expect(exit.lat == path[17].lat && exit.lon == path[17].lon)
        #expect(exit.radiusMeters == 200)
        #expect(exit.seq == 2)
        #expect(h.feed(Array(path[18...])).isEmpty)
        #expect(h.alerts.count == 2)
        #expect(h.engine.insideFences(of: "truck-7").isEmpty)
        #expect(h.engine.seq(of: "truck-7") == 2)
    }

    @Test func confirmationWaitsForAnEvidenceSampleAtOrAfterT0PlusDebounce() throws {
        // Samples every 7 s: t0 = +7, and +21 is short of +27, so +28 confirms.
        var h = try Harness([circle("f", radius: 200)])
        let ds: [Double] = [-100, 50, 50, 50, 50]
        let samples = ds.enumerated().map { k, d in sample(atBoundary(radius: 200, d: d), t: T0 + 7 * Double(k)) }
        h.feed(samples)
        #expect(h.alerts.count == 1)
        #expect(h.alerts.first?.confirmedAt == T0 + 28)
    }

    // MARK: Rule 1: hysteresis

    @Test(arguments: [RegionState.inside, .outside])
    func jitterInsideTheHysteresisBandNeverAlerts(known: RegionState) throws {
        var h = try Harness([circle("f", radius: 300)])
        var rng = SeededRandom(seed: 42)
        h.feed([sample(atBoundary(radius: 300, d: known == .inside ? 100 : -100), t: T0)])
        #expect(h.engine.state(of: "truck-7", in: "f") == known)
        // An hour at 1 Hz, anywhere within ±9 m of the boundary, in every direction.
        for k in 1...3600 {
            let d = rng.uniform(-9...9)
            let bearing = rng.uniform(0...360)
            let t = T0 + Double(k)
            h.feed([sample(atBoundary(radius: 300, d: d, bearing: bearing), t: t)])
            if k % 60 == 0 { h.tick(t + 1_000) }  // silence can't confirm a change without evidence
        }
        #expect(h.alerts.isEmpty)
        #expect(h.engine.state(of: "truck-7", in: "f") == known)
    }

    // MARK: Rule 2: debounce

    @Test func briefExcursionShorterThanDebounceDoesNotExit() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed([sample(atBoundary(radius: 200, d: 100), t: T0)])  // first sight inside
        // Outside evidence at +5 ... +20: 15 s, short of 20.
        for t in stride(from: 5.0, through: 20, by: 5) {
            h.feed([sample(atBoundary(radius: 200, d: -40), t: T0 + t)])
        }
        #expect(h.engine.pendingChange(of: "truck-7", in: "f")?.evidenceSince == T0 + 5)
        h.feed([sample(atBoundary(radius: 200, d: 50), t: T0 + 25)])
        #expect(h.engine.pendingChange(of: "truck-7", in: "f") == nil)
        for t in stride(from: 30.0, through: 120, by: 5) {
            h.feed([sample(atBoundary(radius: 200, d: 50), t: T0 + t)])
        }
        h.tick(T0 + 10_000)
        #expect(h.alerts.isEmpty)
        #expect(h.engine.state(of: "truck-7", in: "f") == .inside)
    }

    @Test func briefExcursionReturningOnlyIntoTheBandOnTheOldSideAlsoCancels() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed([sample(atBoundary(radius: 200, d: 100), t: T0)])
        var t = T0
        for _ in 0..<5 {  // five excursions of 15 s, each ending 5 m inside (no evidence)
            for _ in 0..<4 {
                t += 5
                h.feed([sample(atBoundary(radius: 200, d: -40), t: t)])
            }
            t += 5
            h.feed([sample(atBoundary(radius: 200, d: 5), t: t)])
            #expect(h.engine.pendingChange(of: "truck-7", in: "f") == nil)
        }
        h.tick(t + 10_000)
        #expect(h.alerts.isEmpty)
        #expect(h.engine.state(of: "truck-7", in: "f") == .inside)
    }

    @Test func oldSideSampleInsideTheBandCancelsAndDebounceRestartsFromNextNewSideEvidence() throws {
        var h = try Harness([circle("f", radius: 200)])
        func at(_ d: Double, _ t: Double) -> PositionSample { sample(atBoundary(radius: 200, d: d), t: T0 + t) }
        h.feed([at(-100, 0)])  // known outside
        h.feed([at(30, 5), at(30, 10), at(30, 15)])
        #expect(h.engine.pendingChange(of: "truck-7", in: "f")?.evidenceSince == T0 + 5)
        h.feed([at(-3, 20)])  // 3 m outside: no evidence, but the old side
        #expect(h.engine.pendingChange(of: "truck-7", in: "f") == nil)
        // +25 would have confirmed the first attempt; now it is the new t0.
        #expect(h.feed([at(30, 25), at(30, 30), at(30, 35), at(30, 40)]).isEmpty)
        #expect(h.engine.pendingChange(of: "truck-7", in: "f")?.evidenceSince == T0 + 25)
        let enter = try #require(h.feed([at(30, 45)]).first)
        #expect(enter.confirmedAt == T0 + 45)
        // Crossing between the 3 m-outside sample at +20 and the 30 m-inside one at +25.
        #expect(abs(enter.at - (T0 + 20 + 5 * 3.0 / 33)) < 1e-3)
    }

    @Test func newSideSamplesInsideTheBandKeepThePendingChange() throws {
        var h = try Harness([circle("f", radius: 200)])
        func at(_ d: Double, _ t: Double) -> PositionSample { sample(atBoundary(radius: 200, d: d), t: T0 + t) }
        h.feed([at(-100, 0), at(30, 5), at(5, 10), at(5, 15), at(5, 20)])
        #expect(h.alerts.isEmpty)
        #expect(h.engine.pendingChange(of: "truck-7", in: "f")?.evidenceSince == T0 + 5)
        let enter = try #require(h.feed([at(30, 25)]).first)
        #expect(enter.confirmedAt == T0 + 25)
    }

    @Test func t0IsTheFirstNewSideEvidenceNotTheFirstNewSideSample() throws {
        var h = try Harness([circle("f", radius: 200)])
        func at(_ d: Double, _ t: Double) -> PositionSample { sample(atBoundary(radius: 200, d: d), t: T0 + t) }
        h.feed([at(-100, 0), at(5, 5), at(5, 10), at(30, 15), at(30, 20), at(30, 25), at(30, 30)])
        #expect(h.alerts.isEmpty)
        #expect(h.engine.pendingChange(of: "truck-7", in: "f")?.evidenceSince == T0 + 15)
        let enter = try #require(h.feed([at(30, 35)]).first)
        #expect(enter.confirmedAt == T0 + 35)
        // The crossing is between the last old-side sample (+0, 100 m out) and the first new-side
        // sample (+5, 5 m in), not the first evidence.
        #expect(abs(enter.at - (T0 + 5 * 100.0 / 105)) < 1e-3)
    }

    // MARK: Rule 1: accuracy

    @Test func inaccurateSamplesNeitherStartAChange() throws {
        var h = try Harness([circle("f", radius: 500)])
        h.feed([sample(atBoundary(radius: 500, d: -200), t: T0)])
        for k in 1...24 {  // two minutes at the centre, all 150 m accurate
            h.feed([sample(depot, t: T0 + 5 * Double(k), acc: 150)])
        }
        #expect(h.alerts.isEmpty)
        #expect(h.engine.pendingChange(of: "truck-7", in: "f") == nil)
        #expect(h.engine.state(of: "truck-7", in: "f") == .outside)
        #expect(h.engine.counters.inaccurate == 24)
        #expect(h.outcomes.allSatisfy { $0.status == .accepted })
        h.tick(T0 + 10_000)
        #expect(h.alerts.isEmpty)
    }

    @Test func inaccurateSamplesNeitherConfirmAChange() throws {
        var h = try Harness([circle("f", radius: 500)])
        h.feed([sample(atBoundary(radius: 500, d: -200), t: T0), sample(depot, t: T0 + 5)])  // t0 = +5
        for t in stride(from: 10.0, through: 40, by: 5) {
            #expect(h.feed([sample(depot, t: T0 + t, acc: 101)]).isEmpty)
        }
        let enter = try #require(h.feed([sample(depot, t: T0 + 45)]).first)
        #expect(enter.confirmedAt == T0 + 45)
    }

    @Test func inaccurateSamplesNeitherCancelAChange() throws {
        var h = try Harness([circle("f", radius: 500)])
        let far = atBoundary(radius: 500, d: -300)
        h.feed([sample(far, t: T0), sample(depot, t: T0 + 5)])
        let crossedAt = try #require(h.engine.pendingChange(of: "truck-7", in: "f")?.crossedAt)
        h.feed([sample(far, t: T0 + 10, acc: 150), sample(far, t: T0 + 15, acc: 100.5)])
        #expect(h.engine.pendingChange(of: "truck-7", in: "f")?.evidenceSince == T0 + 5)
        let enter = try #require(h.feed([sample(depot, t: T0 + 25)]).first)
        #expect(enter.confirmedAt == T0 + 25)
        #expect(enter.at == crossedAt)
    }

    @Test func accuracyAtTheLimitStillCounts() throws {
        var h = try Harness([circle("f", radius: 500)])
        h.feed([sample(depot, t: T0, acc: 100)])
        #expect(h.engine.state(of: "truck-7", in: "f") == .inside)
    }

    @Test func accuracyMarginWithAcc30TheSampleMustBe30MetresPastTheBoundary() throws {
        var h = try Harness([circle("f", radius: 500)])
        h.feed([sample(atBoundary(radius: 500, d: 29.5), t: T0, acc: 30)])
        #expect(h.engine.state(of: "truck-7", in: "f") == .unknown)
        h.feed([sample(atBoundary(radius: 500, d: -29.5), t: T0 + 1, acc: 30)])
        #expect(h.engine.state(of: "truck-7", in: "f") == .unknown)
        h.feed([sample(atBoundary(radius: 500, d: 30.5), t: T0 + 2, acc: 30)])
        #expect(h.engine.state(of: "truck-7", in: "f") == .inside)

        // The same margin for starting a debounce: 29.5 m out is the new side but no evidence.
        h.feed([sample(atBoundary(radius: 500, d: -29.5), t: T0 + 3, acc: 30)])
        #expect(h.engine.pendingChange(of: "truck-7", in: "f")?.evidenceSince == nil)
        h.feed([sample(atBoundary(radius: 500, d: -30.5), t: T0 + 4, acc: 30)])
        #expect(h.engine.pendingChange(of: "truck-7", in: "f")?.evidenceSince == T0 + 4)
    }

    @Test func accuracyBelowHysteresisStillNeedsHysteresis() throws {
        var h = try Harness([circle("f", radius: 500)])
        h.feed([sample(atBoundary(radius: 500, d: 9.5), t: T0, acc: 3)])
        #expect(h.engine.state(of: "truck-7", in: "f") == .unknown)
        h.feed([sample(atBoundary(radius: 500, d: 10.5), t: T0 + 1, acc: 3)])
        #expect(h.engine.state(of: "truck-7", in: "f") == .inside)
    }

    @Test func accuracyMarginIsCappedAtHalfTheRadius() throws {
        // Radius 40, acc 50: the margin is min(50, 40 / 2) = 20 m.
        var h = try Harness([circle("small", radius: 40)])
        #expect(h.engine.fence(id: "small")?.marginCap == 20)
        h.feed([sample(atBoundary(radius: 40, d: 19.5), t: T0, acc: 50)])
        #expect(h.engine.state(of: "truck-7", in: "small") == .unknown)
        h.feed([sample(atBoundary(radius: 40, d: 20.5), t: T0 + 1, acc: 50)])
        #expect(h.engine.state(of: "truck-7", in: "small") == .inside)

        var o = try Harness([circle("small", radius: 40)])
        o.feed([sample(atBoundary(radius: 40, d: -19.5), t: T0, acc: 50)])
        #expect(o.engine.state(of: "truck-7", in: "small") == .unknown)
        o.feed([sample(atBoundary(radius: 40, d: -20.5), t: T0 + 1, acc: 50)])
        #expect(o.engine.state(of: "truck-7", in: "small") == .outside)
    }

    @Test func accuracyMarginOfAPolygonIsCappedAtHalfItsInscribedSize() throws {
        // A 200 m square: its inscribed circle has a radius of 100 m, so the cap is 50 m.
        var h = try Harness([square("sq", half: 100)])
        let cap = try #require(h.engine.fence(id: "sq")?.marginCap)
        #expect(abs(cap - 50) < 0.01)
        h.feed([sample(local(depot, x: 0, y: 50.5), t: T0, acc: 80)])  // 49.5 m from the north edge
        #expect(h.engine.state(of: "truck-7", in: "sq") == .unknown)
        h.feed([sample(local(depot, x: 0, y: 49.5), t: T0 + 1, acc: 80)])  // 50.5 m inside
        #expect(h.engine.state(of: "truck-7", in: "sq") == .inside)

        // The concave L: the deepest point sits on the diagonal at c = 100 / (1 + sqrt 2) from the
        // inner corner, as far from the outer edges (100 - c) as from the corner (c sqrt 2).
        let l = try makeFence(polygon("L", lShape))
        let lRadius = 100 - 100 / (1 + 2.0.squareRoot())
        #expect(abs(l.marginCap - lRadius / 2) < 0.05, "\(l.marginCap)")
    }

    @Test func accuracyMarginOfARectangleIsHalfItsShortSideOverTwo() throws {
        // 146 m x 222 m: the inscribed circle is 73 m, the cap 36.5 m (area / perimeter would say 44).
        var h = try Harness([polygon("rect", [(-73, -111), (73, -111), (73, 111), (-73, 111)])])
        let cap = try #require(h.engine.fence(id: "rect")?.marginCap)
        #expect(abs(cap - 36.5) < 0.01)
        h.feed([sample(local(depot, x: -200, y: 0), t: T0)])  // first sight outside
        // 40 m inside the west edge with acc 42: the margin is capped at 36.5, so this is evidence.
        h.feed([sample(local(depot, x: -33, y: 0), t: T0 + 1, acc: 42)])
        h.feed([sample(local(depot, x: -33, y: 0), t: T0 + 21, acc: 42)])
        #expect(events(h.alerts) == ["enter rect"])

        // A long thin strip, 40 m x 1 km: the cap is 10 m, a quarter of its width.
        let strip = try makeFence(polygon("strip", [(-20, -500), (20, -500), (20, 500), (-20, 500)]))
        #expect(abs(strip.marginCap - 10) < 0.01)
    }

    // MARK: Rule 4: order

    @Test func staleAndDuplicateSamplesAreDroppedAndCountedNothingAlertsTwice() throws {
        let path = driveThrough(startingAt: 420, speed: 10, interval: 5, count: 22)
        var clean = try Harness([circle("f", radius: 200)])
        clean.feed(path)
        #expect(events(clean.alerts) == ["enter f", "exit f"])

        // The rule before docs/rules.md "Late samples" widened it: every older sample dropped.
        var h = try Harness(settings: GeofenceSettings(lateWindowSeconds: 0), [circle("f", radius: 200)])
        var stale = 0
        for (k, s) in path.enumerated() {
            h.feed([s])
            h.feed([s])  // duplicate
            stale += 1
            if k >= 3 {  // a late sample from earlier, deep on the other side
                h.feed([PositionSample(lat: path[k - 3].lat, lon: path[k - 3].lon, timestamp: s.timestamp - 0.5)])
                stale += 1
            }
        }
        // After the exit, re-send the samples that confirmed the enter: nothing.
        h.feed(Array(path[5...12]))
        stale += 8
        #expect(h.alerts == clean.alerts)
        #expect(h.engine.counters.stale == stale)
        #expect(h.engine.counters.accepted == path.count)
        #expect(h.outcomes.filter { $0.status == .stale }.count == stale)
    }

    // MARK: Rule 3: first sight

    @Test func firstSightInsideIsSilentButALaterExitIsAlerted() throws {
        var h = try Harness([circle("f", radius: 200)])
        let path = eastWest(stride(from: 0.0, through: 660, by: 60).map { $0 })  // from the centre, east
        #expect(h.feed([path[0]]).isEmpty)
        #expect(h.outcomes[0].firstSight)
        #expect(h.outcomes[0].insideChanged)
        #expect(h.engine.state(of: "truck-7", in: "f") == .inside)
        #expect(h.engine.insideFences(of: "truck-7") == ["f"])
        h.feed(Array(path[1...]))
        #expect(events(h.alerts) == ["exit f"])
        #expect(h.alerts[0].seq == 1)
        #expect(h.alerts[0].confirmedAt == T0 + 40)  // 240 m at +20 is t0
        #expect(abs(h.alerts[0].at - (T0 + 15 + 5 * 20.0 / 60)) < 1e-3)
    }

    @Test func firstSightInTheBandIsUnknownUntilEvidence() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed([sample(atBoundary(radius: 200, d: 5), t: T0)])
        #expect(h.engine.state(of: "truck-7", in: "f") == .unknown)
        #expect(h.engine.insideFences(of: "truck-7").isEmpty)
        h.feed([sample(atBoundary(radius: 200, d: -5), t: T0 + 5)])
        #expect(h.engine.state(of: "truck-7", in: "f") == .unknown)
        h.feed([sample(atBoundary(radius: 200, d: 50), t: T0 + 10)])  // evidence: inside at once
        #expect(h.engine.state(of: "truck-7", in: "f") == .inside)
        #expect(h.alerts.isEmpty)

        var o = try Harness([circle("f", radius: 200)])
        o.feed([sample(atBoundary(radius: 200, d: -5), t: T0)])
        o.feed([sample(atBoundary(radius: 200, d: -50), t: T0 + 5)])
        #expect(o.engine.state(of: "truck-7", in: "f") == .outside)
        #expect(o.alerts.isEmpty)
    }

    @Test func firstSightWaitsForAnAccurateSample() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed([sample(depot, t: T0, acc: 150)])
        #expect(h.engine.state(of: "truck-7", in: "f") == .unknown)
        h.feed([sample(depot, t: T0 + 5)])
        #expect(h.engine.state(of: "truck-7", in: "f") == .inside)
        #expect(h.alerts.isEmpty)
    }

    @Test func garbageSamplesDoNotCrashTheEngine() throws {
        var h = try Harness([circle("f", radius: 200), square("sq", around: destination(depot, bearing: 0, meters: 500), half: 100)])
        h.feed([sample(depot, t: T0)])
        let garbage: [(Double, Double)] = [(.nan, 8), (49, .nan), (.infinity, 8), (95, 8), (-95, 400), (49, -720), (90, 0), (-90, 0)]
        for (k, (lat, lon)) in garbage.enumerated() {
            h.feed([PositionSample(lat: lat, lon: lon, timestamp: T0 + 1 + Double(k))])
            _ = h.engine.fencesNear(lat: lat, lon: lon)
        }
        h.feed([PositionSample(lat: depot.lat, lon: depot.lon, timestamp: .nan)])
        #expect(h.outcomes.last?.status == .invalid)
        h.tick(T0 + 10_000)
    }

    @Test func fenceAddedWhileDeviceInsideIsSilentInsideAtTheNextEvidenceThenExitIsAlerted() throws {
        var h = try Harness([circle("elsewhere", at: destination(depot, bearing: 0, meters: 5_000), radius: 100)])
        h.feed([sample(depot, t: T0)])
        try h.engine.setFence(circle("new", radius: 200))
        #expect(h.engine.state(of: "truck-7", in: "new") == .unknown)
        h.feed([sample(atBoundary(radius: 200, d: 5), t: T0 + 5)])  // band: still unknown
        #expect(h.engine.state(of: "truck-7", in: "new") == .unknown)
        h.feed([sample(depot, t: T0 + 10)])
        #expect(h.engine.state(of: "truck-7", in: "new") == .inside)
        #expect(h.alerts.isEmpty)
        h.feed(eastWest(stride(from: 0.0, through: 660, by: 60).map { $0 }, from: T0 + 15))
        #expect(events(h.alerts) == ["exit new"])
    }

    @Test func fenceAddedWhileDeviceFarAwayIsKnownOutsideAndAnEnterIsAlerted() throws {
        var h = try Harness([])
        h.feed([sample(destination(depot, bearing: 270, meters: 5_000), t: T0)])
        try h.engine.setFence(circle("new", radius: 200))
        h.feed([sample(destination(depot, bearing: 270, meters: 4_000), t: T0 + 5)])
        #expect(h.engine.state(of: "truck-7", in: "new") == .outside)
        h.feed(driveThrough(startingAt: 420, speed: 10, interval: 5, from: T0 + 10, count: 12))
        #expect(events(h.alerts) == ["enter new"])
    }

    // MARK: Rule 2: silent confirmation

    @Test func silentConfirmationViaTickUsesWallClockAndConfirmsAtT0PlusDebounce() throws {
        var h = try Harness([circle("f", radius: 200)])
        let wallLag = 1_000.0  // arrivals far behind event time: silence must be judged on arrivals
        let out = sample(atBoundary(radius: 200, d: -100), t: T0)
        let in1 = sample(atBoundary(radius: 200, d: 50), t: T0 + 5)
        let in2 = sample(atBoundary(radius: 200, d: 60), t: T0 + 10)
        h.feed([out, in1, in2], lag: wallLag)
        let lastArrival = T0 + 10 + wallLag
        #expect(h.tick(T0 + 10 + 25).isEmpty)  // 25 s after the last event time, but not of silence
        #expect(h.tick(lastArrival + 19.9).isEmpty)
        #expect(h.engine.state(of: "truck-7", in: "f") == .outside)
        var changed: [Transition] = []
        let devices = h.engine.tick(now: lastArrival + 20, into: &changed)
        #expect(devices == [StateChange(device: "truck-7", at: T0 + 5 + 20, lat: in2.lat, lon: in2.lon)])
        let enter = try #require(changed.first)
        #expect(changed.count == 1)
        #expect(enter.event == .enter)
        #expect(enter.confirmedAt == T0 + 5 + 20)
        #expect(enter.lat == in2.lat && enter.lon == in2.lon)  // the latest new-side position
        #expect(abs(enter.at - (T0 + 5 * 100.0 / 150)) < 1e-3)  // 100 m out, 50 m in
        #expect(h.engine.state(of: "truck-7", in: "f") == .inside)
        // Nothing twice: more silence, then more inside samples.
        #expect(h.tick(lastArrival + 1_000).isEmpty)
        #expect(h.feed([sample(depot, t: T0 + 60)], lag: wallLag).isEmpty)
    }

    @Test func silenceDoesNotConfirmAPendingChangeWithoutEvidence() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed([sample(atBoundary(radius: 200, d: -100), t: T0), sample(atBoundary(radius: 200, d: 5), t: T0 + 5)])
        #expect(h.engine.pendingChange(of: "truck-7", in: "f")?.evidenceSince == nil)
        #expect(h.tick(T0 + 100_000).isEmpty)
        #expect(h.engine.state(of: "truck-7", in: "f") == .outside)
    }

    @Test func aSampleBeforeTheSilenceRestartsIt() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed([sample(atBoundary(radius: 200, d: -100), t: T0), sample(depot, t: T0 + 5)], lag: 0)
        h.feed([sample(depot, t: T0 + 15)], lag: 0)
        #expect(h.tick(T0 + 5 + 20).isEmpty)  // 20 s after the first, 10 s after the latest
        #expect(h.tick(T0 + 15 + 20).count == 1)
        #expect(h.alerts.first?.confirmedAt == T0 + 25)
    }

    /// The service's broker connection down: nobody could be heard, so that time is not silence.
    @Test func postponedSilenceConfirmsThatMuchLater() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed([sample(atBoundary(radius: 200, d: -100), t: T0), sample(depot, t: T0 + 5)], lag: 0)
        h.engine.postponeSilence(by: 30)
        #expect(h.tick(T0 + 5 + 20).isEmpty)
        #expect(h.tick(T0 + 5 + 49.9).isEmpty)
        #expect(h.tick(T0 + 5 + 50).count == 1)
        #expect(h.alerts.first?.confirmedAt == T0 + 25)  // event time, as without the outage
        h.engine.postponeSilence(by: -5)  // nothing awaits silence now; a negative outage is ignored
    }

    // MARK: Dwell

    @Test func dwellOncePerStayAtTheEnterCrossingAndAgainOnANewStay() throws {
        var h = try Harness([circle("yard", radius: 200, dwell: 60)])  // default notify includes dwell
        #expect(h.engine.fence(id: "yard")?.notify == [.enter, .exit, .dwell])
        // In from 420 m west to the centre (9 samples), parked 3 min, out east, back west.
        let xs: [Double] = stride(from: -420.0, through: -20, by: 50).map { $0 } + Array(repeating: 0, count: 36)
            + stride(from: 30.0, through: 480, by: 50).map { $0 } + stride(from: 430.0, through: 0, by: -50).map { $0 }
            + Array(repeating: 0, count: 20)
        h.feed(eastWest(xs))
        #expect(events(h.alerts) == ["enter yard", "dwell yard", "exit yard", "enter yard", "dwell yard"])
        let enter = h.alerts[0], dwell = h.alerts[1]
        #expect(abs(enter.at - (T0 + 22)) < 1e-3)
        #expect(dwell.at == enter.at)
        // The first sample at least 60 s after the crossing at +22 is +85.
        #expect(dwell.confirmedAt == T0 + 85)
        #expect(dwell.dwellSeconds == dwell.confirmedAt - enter.at)
        #expect(try #require(dwell.dwellSeconds) >= 60)
        #expect(dwell.radiusMeters == 200)
        let secondEnter = h.alerts[3], secondDwell = h.alerts[4]
        #expect(secondDwell.at == secondEnter.at)
        #expect(try #require(secondDwell.dwellSeconds) >= 60)
        #expect(h.alerts.map(\.seq) == [1, 2, 3, 4, 5])
    }

    @Test func dwellNotEmittedWithoutDwellInNotify() throws {
        var h = try Harness([circle("yard", radius: 200, notify: [.enter, .exit], dwell: 60)])
        h.feed(eastWest(stride(from: -420.0, through: -20, by: 50).map { $0 } + Array(repeating: 0, count: 60)))
        #expect(events(h.alerts) == ["enter yard"])
    }

    @Test func dwellWithoutDwellSecondsIsRejected() {
        #expect(throws: FenceError.dwellWithoutDuration) {
            try makeFence(circle("y", radius: 200, notify: [.dwell]))
        }
        #expect(throws: FenceError.invalidDwell(0)) {
            try makeFence(circle("y", radius: 200, dwell: 0))
        }
    }

    // MARK: notify and seq

    @Test func notifyFiltersEnterOnlyAndExitOnlyAndSeqCountsOnlyEmittedAlerts() throws {
        let west = destination(depot, bearing: 270, meters: 1_000)
        let east = destination(depot, bearing: 90, meters: 1_000)
        var h = try Harness([
            circle("in-only", at: west, radius: 200, notify: [.enter]),
            circle("out-only", at: east, radius: 200, notify: [.exit]),
        ])
        // East along the line through both, from 1 420 m west of the depot to 1 500 m east of it.
        let path = driveThrough(west, heading: 90, startingAt: 420, speed: 10, interval: 5, count: 70)
        h.feed(path)
        #expect(events(h.alerts) == ["enter in-only", "exit out-only"])
        #expect(h.alerts.map(\.seq) == [1, 2])
        #expect(h.engine.seq(of: "truck-7") == 2)
        #expect(h.engine.counters.transitions == 2)
        // Both states still moved.
        #expect(h.engine.state(of: "truck-7", in: "in-only") == .outside)
        #expect(h.engine.state(of: "truck-7", in: "out-only") == .outside)

        // Another device has its own sequence.
        h.feed(driveThrough(west, heading: 90, startingAt: 420, speed: 10, interval: 5, count: 20), device: "truck-8")
        #expect(h.alerts.last?.device == "truck-8")
        #expect(h.alerts.last?.seq == 1)
        #expect(h.engine.seq(of: "truck-7") == 2)
    }

    @Test func seqGrowsByExactlyOnePerAlertAcrossFences() throws {
        // Three overlapping circles, entered and left together, twice.
        var h = try Harness([circle("a", radius: 200), circle("b", radius: 250), circle("c", radius: 300)])
        let xs = stride(from: -510.0, through: 490, by: 50).map { $0 } + stride(from: 490.0, through: -710, by: -50).map { $0 }
        h.feed(eastWest(xs))
        #expect(h.alerts.count == 12)
        #expect(h.alerts.map(\.seq) == Array(1...12))
    }
}
