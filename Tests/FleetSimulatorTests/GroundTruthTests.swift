import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

@Suite("Ground truth on crafted paths")
struct GroundTruthTests {
    let rules = GroundTruthRules()
    let wdf = Fixtures.circle("wdf", radius: 200)

    func track(_ corners: [(t: Double, d: Double)], noise: Double = 0, silent: Bool = true) -> TrackTruth {
        Fixtures.track(corners, noise: noise, silent: silent)
    }

    func summary(_ alerts: [ExpectedAlert]) -> [String] {
        alerts.map { "\($0.event.rawValue) \($0.certainty.rawValue)" }
    }

    @Test func cleanEnterAndExitAtTheTrueCrossings() {
        // Out at -300 m, in to +150 m by t=60, out again from t=120 to -300 m at t=200.
        let alerts = track([(0, -300), (60, 150), (120, 150), (200, -300)]).alerts(at: wdf, rules: rules)
        #expect(summary(alerts) == ["enter expected", "exit expected"])
        #expect(abs(alerts[0].at - 1040) < 0.01)  // d = 0 at t = 40
        #expect(abs(alerts[1].at - (1120 + 150.0 / 450 * 80)) < 0.01)
        #expect(alerts.allSatisfy { $0.due == $0.at && !$0.bySilence })
    }

    @Test func firstSightIsSilent() {
        let alerts = track([(0, 100), (60, 100), (100, -200), (200, -200)]).alerts(at: wdf, rules: rules)
        #expect(summary(alerts) == ["exit expected"])
    }

    @Test func aGrazeIsAmbiguousAndChangesNothing() {
        let alerts = track([(0, -100), (50, 5), (100, 5), (150, -100), (200, 100), (300, 100)]).alerts(at: wdf, rules: rules)
        #expect(summary(alerts) == ["enter ambiguous", "enter expected"])
        #expect(alerts[0].note?.hasPrefix("graze") == true)
    }

    @Test func aShortDeepVisitExpectsNothing() {
        // 8 s inside: deep enough, far too short for the 20 s debounce.
        let alerts = track([(0, -100), (30, -100), (31, 100), (39, 100), (40, -100), (100, -100)]).alerts(at: wdf, rules: rules)
        #expect(alerts.isEmpty)
    }

    @Test func aStayCloseToTheDebounceIsAmbiguousAndSoIsItsExit() {
        // Evidence from t=31 to t=51: exactly the debounce.
        let alerts = track([(0, -100), (30, -100), (31, 100), (51, 100), (52, -100), (150, -100)]).alerts(at: wdf, rules: rules)
        #expect(summary(alerts) == ["enter ambiguous", "exit ambiguous"])
        #expect(alerts[1].note == "after an ambiguous change")
    }

    @Test func silenceConfirmsWhatTheLastSamplesStarted() {
        let path = [(0.0, -100.0), (30, -100), (31, 100), (36, 100)]
        let alerts = track(path).alerts(at: wdf, rules: rules)
        #expect(summary(alerts) == ["enter expected"])
        #expect(alerts.first?.bySilence == true)
        #expect(track(path, silent: false).alerts(at: wdf, rules: rules).isEmpty)
    }

    @Test func noiseWidensTheBand() {
        // 15 m deep for a minute: clean without noise; with 5 m noise evidence needs 10 + 2 * 5.
        let path = [(0.0, -100.0), (60, -100), (70, 15), (130, 15), (140, -100), (250, -100)]
        #expect(summary(track(path).alerts(at: wdf, rules: rules)) == ["enter expected", "exit expected"])
        let noisy = track(path, noise: 5).alerts(at: wdf, rules: rules)
        #expect(summary(noisy) == ["enter ambiguous", "exit ambiguous"])
    }

    @Test func accuracyAboveTheLimitSaysNothing() {
        let path = [(0.0, -300.0), (60, 150), (120, 150), (200, -300)]
        var t = track(path)
        t.accuracy = 150
        #expect(t.alerts(at: wdf, rules: rules).isEmpty)
    }

    @Test func dwellOncePerLongEnoughStay() {
        let depot = Fixtures.circle("depot", radius: 120, dwell: 60)
        let long = track([(0, -100), (10, 60), (150, 60), (160, -100), (260, -100)]).alerts(at: depot, rules: rules)
        #expect(summary(long) == ["enter expected", "dwell expected", "exit expected"])
        #expect(long[1].at == long[0].at)
        #expect(abs(long[1].due - (long[0].at + 60)) < 1e-9)

        let borderline = track([(0, -100), (10, 60), (67, 60), (69, -100), (200, -100)]).alerts(at: depot, rules: rules)
        #expect(summary(borderline) == ["enter expected", "dwell ambiguous", "exit expected"])

        let short = track([(0, -100), (10, 60), (45, 60), (50, -100), (150, -100)]).alerts(at: depot, rules: rules)
        #expect(summary(short) == ["enter expected", "exit expected"])
    }

    @Test func notifyLimitsTheEvents() {
        let gate = Fixtures.circle("gate", radius: 200, notify: [.enter])
        let alerts = track([(0, -300), (60, 150), (120, 150), (200, -300)]).alerts(at: gate, rules: rules)
        #expect(summary(alerts) == ["enter expected"])
    }

    @Test func aClampedFenceUsesItsEffectiveRadiusAndMarginCap() {
        // Radius 5 is clamped to 20: evidence needs min(10, 20 / 2) = 10 m inside.
        let gate = Fixtures.circle("gate", radius: 5)
        #expect(gate.radius == 20)
        let alerts = track([(0, -100), (30, 15), (120, 15), (150, -100), (250, -100)]).alerts(at: gate, rules: rules)
        #expect(summary(alerts) == ["enter expected", "exit expected"])
    }
}
