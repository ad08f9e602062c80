import FleetFenceCodecs
import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

/// Scoring of speeding and tour events beside enters, exits and dwells, and how they read.
@Suite("Verify scoring of speeding and tour events")
struct FleetRulesScoringTests {
    func tourEvent(_ event: AlertEvent, stop: String, index: Int, at: Double, duration: ClosedRange<Double>? = nil) -> ExpectedAlert {
        ExpectedAlert(
            device: "truck-1", fence: stop, event: event, at: at, certainty: .expected, atWindow: at...(at + 3),
            tour: "deliveries", stopIndex: index, duration: duration)
    }

    func received(
        _ event: AlertEvent, stop: String, index: Int, at: Double, seq: UInt64, tour: String = "deliveries", duration: Double? = nil
    ) -> ReceivedAlert {
        ReceivedAlert(
            event: event, device: "truck-1", fence: stop, at: at, confirmedAt: nil, seq: seq, durationSeconds: duration,
            tour: tour, stopIndex: index)
    }

    @Test func tourEventsMatchOnTourStopAndTime() {
        let truth = [
            tourEvent(.stopVisited, stop: "dock-a", index: 0, at: 100),
            tourEvent(.stopSkipped, stop: "dock-b", index: 1, at: 500),
            tourEvent(.stopVisited, stop: "dock-c", index: 2, at: 500),
            tourEvent(.tourCompleted, stop: "dock-c", index: 2, at: 500, duration: 397...403),
        ]
        let alerts = [
            received(.stopVisited, stop: "dock-a", index: 0, at: 101, seq: 2),
            received(.stopSkipped, stop: "dock-b", index: 1, at: 502, seq: 4),
            received(.stopVisited, stop: "dock-c", index: 2, at: 502, seq: 5),
            received(.tourCompleted, stop: "dock-c", index: 2, at: 502, seq: 6, duration: 401),
            received(.stopVisited, stop: "dock-a", index: 0, at: 101, seq: 9, tour: "another"),  // not this run's tour
        ]
        let report = VerifyScoring.score(
            expected: truth, received: alerts, devices: ["truck-1"], fences: ["dock-a", "dock-b", "dock-c"], tours: ["deliveries"],
            debounce: 20)
        #expect(report.isClean, "\(report)")
        #expect(report.matched == 4 && report.ignored == 1)
        #expect(report.byEvent[.stopVisited]! == (2, 2) && report.byEvent[.stopSkipped]! == (1, 1))
        #expect(report.byEvent[.tourCompleted]! == (1, 1))
        // Without confirmed_at there is no delay to tell.
        #expect(report.delays == nil)
        #expect(report.summary.contains("matched by event: stop_visited 2/2, stop_skipped 1/1, tour_completed 1/1"))
        #expect(report.matchedList.contains("truck-1 stop_skipped dock-b (tour deliveries, stop_index 1) crossed"))
    }

    @Test func aWrongStopIndexOrDurationMatchesNothing() {
        let truth = [
            tourEvent(.stopVisited, stop: "dock-b", index: 1, at: 300),
            tourEvent(.tourCompleted, stop: "dock-c", index: 2, at: 500, duration: 397...403),
        ]
        let alerts = [
            received(.stopVisited, stop: "dock-b", index: 2, at: 300, seq: 1),
            received(.tourCompleted, stop: "dock-c", index: 2, at: 500, seq: 2, duration: 500),
        ]
        let report = VerifyScoring.score(
            expected: truth, received: alerts, devices: ["truck-1"], fences: [], tours: ["deliveries"], tolerance: 60)
        #expect(report.missed.map(\.event) == [.stopVisited, .tourCompleted])
        #expect(report.falseAlerts.map(\.event) == [.stopVisited, .tourCompleted])
        #expect(report.summary.contains("missed         2   (stop_visited 1, tour_completed 1)"))
        #expect(report.summary.contains("truck-1 stop_visited dock-b (tour deliveries, stop_index 2) at"))
    }

    @Test func speedingConfirmedBeforeADebounceIsFalse() {
        let truth = [ExpectedAlert(device: "truck-1", fence: "zone", event: .speeding, at: 1030, due: 1050, certainty: .expected)]
        let early = ReceivedAlert(event: .speeding, device: "truck-1", fence: "zone", at: 1030, confirmedAt: 1045, seq: 1)
        let right = ReceivedAlert(event: .speeding, device: "truck-1", fence: "zone", at: 1030, confirmedAt: 1050.2, seq: 2)
        let report = VerifyScoring.score(expected: truth, received: [early, right], devices: ["truck-1"], fences: ["zone"], debounce: 20)
        #expect(report.matched == 1 && report.falseAlerts.map(\.seq) == [1])
        #expect(report.byEvent[.speeding]! == (1, 1))
        #expect(report.matchedAlerts.first?.delay.map { abs($0 - 0.2) < 1e-9 } == true)
        #expect(report.summary.contains("false          1   (speeding 1)"))
    }

    @Test func tourEventsAndSpeedingReadFromTheServicesPayloads() throws {
        let visit = Transition(
            event: .stopSkipped, device: "truck-5", fenceID: "dock-b", fenceName: "Dock B", at: 1_795_600_000.5,
            confirmedAt: 1_795_600_021, lat: 49.28, lon: 8.70, radiusMeters: 80, seq: 7, tourID: "deliveries", stopIndex: 1)
        let skipped = try ReceivedAlert.decode(AlertPayload.encode(visit))
        #expect(skipped.event == .stopSkipped && skipped.fence == "dock-b" && skipped.tour == "deliveries" && skipped.stopIndex == 1)
        #expect(skipped.at == 1_795_600_000.5 && skipped.seq == 7)
        #expect(AlertLine.format(skipped).hasSuffix("truck-5 STOP_SKIPPED dock-b, tour deliveries stop_index 1, crossed \(AlertLine.clock(1_795_600_000.5))"))

        var completed = visit
        completed.event = .tourCompleted
        completed.fenceID = "dock-c"
        completed.stopIndex = 2
        completed.durationSeconds = 754.25
        let done = try ReceivedAlert.decode(AlertPayload.encode(completed))
        #expect(done.durationSeconds == 754.25)
        #expect(AlertLine.format(done).hasSuffix(", in 12m34s"))

        let speeding = Transition(
            event: .speeding, device: "truck-13", fenceID: "school-zone", fenceName: "School Zone Rot", at: 1_795_600_100,
            confirmedAt: 1_795_600_120, lat: 49.29, lon: 8.70, radiusMeters: nil, seq: 3, maxSpeedKmh: 50.04, limitKmh: 30)
        let alert = try ReceivedAlert.decode(AlertPayload.encode(speeding))
        #expect(alert.event == .speeding && alert.maxSpeedKmh == 50.04 && alert.limitKmh == 30 && alert.confirmedAt == 1_795_600_120)
        #expect(AlertLine.format(alert).hasSuffix(
            "truck-13 SPEEDING school-zone (School Zone Rot) since \(AlertLine.clock(1_795_600_100)), up to 50 km/h (limit 30)"))
    }
}
