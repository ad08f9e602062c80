import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

/// Ground truth for tours (docs/rules.md "Tours") on hand-made enters at the stops.
@Suite("Ground truth of tours")
struct TourTruthTests {
    let ordered = TourDefinition(id: "deliveries", stops: ["a", "b", "c"])

    func enter(_ fence: String, at: Double, ambiguous: Bool = false) -> ExpectedAlert {
        ExpectedAlert(
            device: "t", fence: fence, event: .enter, at: at, certainty: ambiguous ? .ambiguous : .expected,
            atWindow: at...(at + 4))
    }

    func events(_ tour: TourDefinition, _ enters: [ExpectedAlert]) -> [ExpectedAlert] {
        TourTruth(tour: tour, device: "t", enters: enters).alerts()
    }

    func summary(_ alerts: [ExpectedAlert], _ certainty: ExpectedAlert.Certainty? = nil) -> [String] {
        alerts.filter { certainty == nil || $0.certainty == certainty }
            .map { "\($0.event.rawValue) \($0.stopIndex!) \($0.fence) @\(Int($0.at))" }
    }

    @Test func inOrderEveryStopIsVisitedThenTheTourCompletes() throws {
        let alerts = events(ordered, [enter("a", at: 100), enter("elsewhere", at: 200), enter("b", at: 300), enter("c", at: 500)])
        #expect(summary(alerts) == ["stop_visited 0 a @100", "stop_visited 1 b @300", "stop_visited 2 c @500", "tour_completed 2 c @500"])
        #expect(alerts.allSatisfy { $0.certainty == .expected && $0.tour == "deliveries" })
        // From the round's first visit; each crossing may be reported anywhere in its window.
        let completed = try #require(alerts.last)
        #expect(completed.duration == 396...404)
        #expect(completed.atWindow == 500...504)
    }

    @Test func aStopPassedOverIsSkippedBeforeTheLaterStopIsVisited() {
        let alerts = events(ordered, [enter("a", at: 100), enter("c", at: 500)])
        #expect(summary(alerts) == ["stop_visited 0 a @100", "stop_skipped 1 b @500", "stop_visited 2 c @500", "tour_completed 2 c @500"])
    }

    @Test func anUnfinishedTourIsNeverCompleted() {
        #expect(summary(events(ordered, [enter("a", at: 100), enter("b", at: 300)])) == ["stop_visited 0 a @100", "stop_visited 1 b @300"])
    }

    @Test func afterCompletionOnlyTheFirstStopStartsTheNextRound() {
        let alerts = events(ordered, [
            enter("a", at: 100), enter("b", at: 200), enter("c", at: 300),
            enter("b", at: 400),  // the round is over: nothing
            enter("a", at: 500), enter("a", at: 550),  // round 2; entering a again is not a second visit
            enter("c", at: 600),
        ])
        #expect(summary(alerts) == [
            "stop_visited 0 a @100", "stop_visited 1 b @200", "stop_visited 2 c @300", "tour_completed 2 c @300",
            "stop_visited 0 a @500", "stop_skipped 1 b @600", "stop_visited 2 c @600", "tour_completed 2 c @600",
        ])
        #expect(alerts.last?.duration == 96...104)
    }

    @Test func anAmbiguousEnterMakesWhatDependsOnItAmbiguousAndNothingElse() {
        let alerts = events(ordered, [enter("a", at: 100), enter("b", at: 300, ambiguous: true), enter("c", at: 500)])
        // With b or without it: a and c are visited and the tour completes either way.
        #expect(summary(alerts, .expected) == ["stop_visited 0 a @100", "stop_visited 2 c @500", "tour_completed 2 c @500"])
        #expect(summary(alerts, .ambiguous) == ["stop_visited 1 b @300", "stop_skipped 1 b @500"])
    }

    @Test func anAmbiguousFirstVisitLeavesTheDurationOpen() throws {
        let alerts = events(ordered, [
            enter("a", at: 100, ambiguous: true), enter("a", at: 200), enter("b", at: 300), enter("c", at: 500),
        ])
        let completed = try #require(alerts.first { $0.event == .tourCompleted })
        #expect(completed.certainty == .expected)
        #expect(completed.duration == 296...404)
    }

    @Test func unorderedToursVisitInAnyOrderAndSkipNothing() {
        let any = TourDefinition(id: "any", stops: ["a", "b", "c"], ordered: false)
        let alerts = events(any, [
            enter("c", at: 100), enter("a", at: 200), enter("c", at: 250), enter("b", at: 300),
            enter("b", at: 400),  // any stop starts the next round of an unordered tour
        ])
        #expect(summary(alerts) == [
            "stop_visited 2 c @100", "stop_visited 0 a @200", "stop_visited 1 b @300", "tour_completed 1 b @300",
            "stop_visited 1 b @400",
        ])
    }
}
