import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

/// Ground truth for `speeding` (docs/rules.md "The rules") on hand-made speeds, one sample a second.
@Suite("Ground truth of speeding")
struct SpeedingTruthTests {
    /// 30 km/h.
    let limit = 30.0
    let over = 50 / 3.6, under = 20 / 3.6

    /// Speeds as (seconds, m/s) stretches from t = 1000, inside throughout unless `inside` says.
    func truth(_ stretches: [(seconds: Int, speed: Double?)], inside: ((Int) -> (surely: Bool, possibly: Bool))? = nil) -> SpeedingTruth {
        let speeds = stretches.flatMap { Array(repeating: $0.speed, count: $0.seconds) }
        let times = speeds.indices.map { 1000 + Double($0) }
        let sides: [(surely: Bool, possibly: Bool)] = speeds.indices.map { inside?($0) ?? (true, true) }
        return SpeedingTruth(
            device: "t", fence: "zone", limitKmh: limit, times: times, speeds: speeds,
            surelyInside: sides.map(\.surely), possiblyInside: sides.map(\.possibly), debounce: 20, slack: 2)
    }

    func summary(_ alerts: [ExpectedAlert]) -> [String] {
        alerts.map { "\($0.certainty.rawValue) @\(Int($0.at - 1000))" }
    }

    @Test func oneEpisodeAtItsFirstSampleOverTheLimit() throws {
        let alerts = truth([(30, under), (40, over), (40, under)]).alerts()
        #expect(summary(alerts) == ["expected @30"])
        let alert = try #require(alerts.first)
        #expect(alert.event == .speeding && alert.fence == "zone")
        #expect(alert.due == 1050)
        #expect(alert.atWindow == 1030...1030)
    }

    @Test func shorterThanTheDebounceIsNothingAndCloseToItAmbiguous() {
        #expect(truth([(30, under), (15, over), (40, under)]).alerts().isEmpty)
        // Samples from 30 to 50 s: exactly the debounce, within the timing margin.
        #expect(summary(truth([(30, under), (21, over), (40, under)]).alerts()) == ["ambiguous @30"])
    }

    @Test func aDipShorterThanTheDebounceKeepsTheEpisodeALongerOneEndsIt() {
        #expect(summary(truth([(10, under), (30, over), (10, under), (30, over), (10, under)]).alerts()) == ["expected @10"])
        #expect(summary(truth([(10, under), (30, over), (30, under), (30, over), (10, under)]).alerts())
            == ["expected @10", "expected @70"])
        // A dip of about the debounce: the second episode may or may not be a new one.
        #expect(summary(truth([(10, under), (30, over), (21, under), (30, over), (10, under)]).alerts())
            == ["expected @10", "ambiguous @61"])
    }

    @Test func atTheLimitIsNotOverButTooCloseToCall() {
        #expect(truth([(10, under), (60, (limit - 0.05) / 3.6), (10, under)]).alerts().isEmpty)
        #expect(summary(truth([(10, under), (60, limit / 3.6), (10, under)]).alerts()) == ["ambiguous @10"])
    }

    @Test func samplesWithoutASpeedSayNothing() {
        #expect(summary(truth([(10, under), (15, over), (10, nil), (15, over), (10, under)]).alerts()) == ["expected @10"])
    }

    @Test func leavingTheFenceEndsTheEpisode() {
        // Over the limit throughout, out of the fence from 40 to 60 s: two episodes.
        let alerts = truth([(100, over)]) { j in (40..<60).contains(j) ? (false, false) : (true, true) }.alerts()
        #expect(summary(alerts) == ["expected @0", "expected @60"])
    }

    @Test func speedingAcrossAnEnterUnderNoiseIsAlertedOnceSomewhereAlongIt() throws {
        // A 200 m circle entered at 14 m/s, over the limit all the way: under 10 m of noise the
        // enter is confirmed some time after the crossing, and the episode starts at the first
        // sample inside by the service's state.
        let track = Fixtures.track([(0, -300), (30, 120), (120, 120), (150, -300)], accuracy: 10, noise: 10)
        let verdict = track.verdict(at: Fixtures.circle("zone", radius: 200), rules: GroundTruthRules())
        let alerts = SpeedingTruth(
            device: "t", fence: "zone", limitKmh: limit, times: track.times, speeds: track.times.map { _ in over },
            surelyInside: verdict.surelyInside, possiblyInside: verdict.possiblyInside, debounce: 20, slack: 2
        ).alerts()
        let alert = try #require(alerts.first)
        #expect(alerts.count == 1 && alert.certainty == .expected)
        // From the first sample that may be inside evidence to the first after a certain confirmation.
        #expect(alert.atWindow.lowerBound < 1000 + 22.5 && alert.atWindow.upperBound > 1000 + 22.5 + 20)
        #expect(verdict.surelyInside.firstIndex(of: true).map { track.times[$0] } == alert.atWindow.upperBound)
    }
}
