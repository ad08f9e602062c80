import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

/// Ground truth and scoring at the noise of the end-to-end test (10 m), where a truck can linger
/// within the noise of a boundary and the service's estimate of the crossing drifts with it.
@Suite("Ground truth and scoring under 10 m of noise")
struct NoisyGroundTruthTests {
    let rules = GroundTruthRules()
    /// The gatehouse: 5 m clamped to 20 m, so its evidence margin is capped at 10 m.
    let gate = Fixtures.circle("gate", radius: 20)

    /// Samples every second along corners of signed distance (linear between), as in
    /// GroundTruthTests, with the `acc` 10 m noise carries.
    func track(_ corners: [(t: Double, d: Double)], noise: Double) -> TrackTruth {
        Fixtures.track(corners, accuracy: max(noise, 5), noise: noise)
    }

    @Test func aStayWithinTheNoiseOfTheBoundaryWidensWhereTheCrossingMayBeReported() throws {
        // In from -100 m to the centre (20 m deep) by t=60, 90 s there, out again by t=200.
        let alerts = track([(0, -100), (60, 20), (150, 20), (200, -100)], noise: 10).alerts(at: gate, rules: rules)
        let enter = try #require(alerts.first { $0.event == .enter })
        #expect(enter.certainty == .ambiguous)
        #expect(abs(enter.at - (1000 + 100.0 / 120 * 60)) < 0.01)
        // Every sample of the stay may land outside 20 m: the last one may be the last old-side one.
        #expect(enter.atWindow.upperBound >= 1150)
        #expect(enter.atWindow.lowerBound <= enter.at && enter.atWindow.upperBound <= 1200)
    }

    @Test func aTrackEndingWithinTheNoiseOfTheBoundaryEndsItsWindowAtTheLastSample() throws {
        // Stops on the gatehouse for good: silence may confirm after any of the last samples.
        let truth = track([(0, -100), (60, 20), (150, 20)], noise: 10)
        let enter = try #require(truth.alerts(at: gate, rules: rules).first { $0.event == .enter })
        #expect(enter.atWindow.upperBound == truth.times.last)
    }

    @Test func aCleanCrossingKeepsANarrowWindow() throws {
        let wdf = Fixtures.circle("wdf", radius: 200)
        // 15 m/s through a 200 m circle: the noise may flip samples from 20 m outside to 40 m
        // inside (two and four deviations), four seconds of driving.
        let alerts = track([(0, -300), (30, 120), (120, 120), (150, -300)], noise: 10).alerts(at: wdf, rules: rules)
        #expect(alerts.map(\.certainty) == [.expected, .expected])
        for alert in alerts {
            #expect(alert.atWindow.upperBound - alert.atWindow.lowerBound <= 6, "\(alert)")
        }
    }

    @Test func anAlertLateInTheWindowIsNotFalse() {
        // The service's at, 64 s after the true crossing: its last old-side sample came that late.
        let truth = [ExpectedAlert(
            device: "t", fence: "gate", event: .enter, at: 1083, certainty: .ambiguous, atWindow: 1082...1150)]
        let late = ReceivedAlert(event: .enter, device: "t", fence: "gate", at: 1147, confirmedAt: 1170, seq: 1)
        let report = VerifyScoring.score(expected: truth, received: [late], devices: ["t"], fences: ["gate"])
        #expect(report.isClean, "\(report)")
        #expect(report.ambiguousAlerted == 1)
        // Without the window the same alert is 64 s from the crossing: beyond the 60 s tolerance.
        let point = [ExpectedAlert(device: "t", fence: "gate", event: .enter, at: 1083, certainty: .ambiguous)]
        #expect(VerifyScoring.score(expected: point, received: [late], devices: ["t"], fences: ["gate"]).falseCount == 1)
    }

    // MARK: The engine against ground truth on the bundled routes

    let routes = Fixtures.bundledRoutes
    let fences = Fixtures.bundledFences


    @Test(arguments: Array(UInt64(1)...40))
    func theEngineAgreesWithGroundTruthAtTenMetres(seed: UInt64) {
        for reverse in [false, true] {
            var options = FleetOptions()
            options.trucks = 25
            options.noise = 10
            options.reverse = reverse
            options.seed = seed
            let report = Fixtures.engineReport(FleetPlan(routes: routes, options: options))
            #expect(report.isClean, "seed \(seed) reverse \(reverse)\n\(report)")
            #expect(report.expected >= 2 * options.trucks)
            #expect(report.matched == report.expected)
        }
    }
}
