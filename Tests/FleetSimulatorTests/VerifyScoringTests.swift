import FleetFenceCodecs
import Foundation
import GeofenceEngine
import Testing
@testable import FleetSimulator

@Suite("Verify scoring")
struct VerifyScoringTests {
    func expected(_ device: String, _ fence: String, _ event: AlertEvent, at: Double, ambiguous: Bool = false) -> ExpectedAlert {
        ExpectedAlert(device: device, fence: fence, event: event, at: at, certainty: ambiguous ? .ambiguous : .expected)
    }

    func alert(_ device: String, _ fence: String, _ event: AlertEvent, at: Double, confirmed: Double, seq: UInt64) -> ReceivedAlert {
        ReceivedAlert(event: event, device: device, fence: fence, at: at, confirmedAt: confirmed, seq: seq)
    }

    @Test func matchesMissesFalseAndAmbiguous() {
        let truth = [
            expected("truck-1", "wdf01", .enter, at: 100),
            expected("truck-1", "wdf01", .exit, at: 400),
            expected("truck-1", "wdf01", .enter, at: 1000),  // missed
            expected("truck-2", "wdf01", .enter, at: 100),
            expected("truck-2", "depot", .enter, at: 500, ambiguous: true),
            expected("truck-2", "depot", .exit, at: 900, ambiguous: true),
        ]
        let received = [
            alert("truck-1", "wdf01", .enter, at: 101, confirmed: 122, seq: 1),
            alert("truck-1", "wdf01", .exit, at: 399, confirmed: 421, seq: 2),
            alert("truck-1", "wdf01", .exit, at: 399, confirmed: 421, seq: 2),  // redelivered
            alert("truck-2", "wdf01", .enter, at: 100.5, confirmed: 130, seq: 1),
            alert("truck-2", "wdf01", .exit, at: 200, confirmed: 220, seq: 2),  // false
            alert("truck-2", "depot", .enter, at: 505, confirmed: 525, seq: 3),  // ambiguous, alerted
            alert("truck-1", "wdf01", .enter, at: 2000, confirmed: 2020, seq: 3),  // too far from 1000: false
            alert("truck-9", "wdf01", .enter, at: 100, confirmed: 120, seq: 1),  // not ours
            alert("truck-1", "elsewhere", .enter, at: 100, confirmed: 120, seq: 4),  // fence not in the file
        ]
        let report = VerifyScoring.score(
            expected: truth, received: received, devices: ["truck-1", "truck-2"], fences: ["wdf01", "depot"])
        #expect(report.expected == 4)
        #expect(report.matched == 3)
        #expect(report.missed.map(\.at) == [1000])
        #expect(report.falseAlerts.map(\.at) == [200, 2000])
        #expect(report.ambiguous == 2)
        #expect(report.ambiguousAlerted == 1)
        #expect(report.duplicates == 1)
        #expect(report.ignored == 2)
        #expect(!report.isClean)
        #expect(report.byEvent[.enter]! == (3, 2))
        let delays = report.delays!
        #expect(delays.count == 3)
        #expect(delays.median == 22)
        #expect(delays.max == 30)
        // Each matched alert is listed with its delay, in the order of the crossings.
        #expect(report.matchedAlerts.map(\.delay) == [22, 30, 21])
        #expect(report.matchedAlerts.map(\.alert.device) == ["truck-1", "truck-2", "truck-1"])
        let text = report.description
        let listed = text.split(separator: "\n").filter { $0.hasPrefix("  truck-") && $0.contains(" delay ") }
        #expect(listed == [
            "  truck-1 enter wdf01 crossed \(RFC3339.format(100)) confirmed \(RFC3339.format(122)) delay 22.0",
            "  truck-2 enter wdf01 crossed \(RFC3339.format(100)) confirmed \(RFC3339.format(130)) delay 30.0",
            "  truck-1 exit wdf01 crossed \(RFC3339.format(400)) confirmed \(RFC3339.format(421)) delay 21.0",
        ], "\(text)")
        #expect(text.hasPrefix("matched ("), "the list first, the summary last")
        #expect(!report.summary.contains(" delay 22.0"))
        #expect(text.contains("missed         1"))
        #expect(text.contains("false          2"))
        #expect(text.contains("truck-2 exit wdf01 at"))
        #expect(text.hasSuffix("result: 1 missed, 2 false"))
    }

    @Test func eachAlertMatchesOnceNearestFirst() {
        let truth = [expected("t", "f", .enter, at: 100), expected("t", "f", .enter, at: 150)]
        let received = [alert("t", "f", .enter, at: 140, confirmed: 170, seq: 1)]
        let report = VerifyScoring.score(expected: truth, received: received, devices: ["t"], fences: ["f"])
        #expect(report.matched == 1)
        #expect(report.missed.map(\.at) == [100])
    }

    /// Debounce (docs/rules.md "The rules"): matching on `at` alone let a service with a shorter debounce score clean.
    @Test func anAlertConfirmedSoonerThanTheDebounceAfterItsCrossingIsFalse() {
        let truth = [expected("t", "f", .enter, at: 100), expected("t", "f", .exit, at: 300)]
        let received = [
            alert("t", "f", .enter, at: 100, confirmed: 105, seq: 1),  // 5 s: too soon for 20
            alert("t", "f", .exit, at: 300, confirmed: 320, seq: 2),  // exactly the debounce
        ]
        let strict = VerifyScoring.score(expected: truth, received: received, devices: ["t"], fences: ["f"], debounce: 20)
        #expect(strict.matched == 1 && strict.falseAlerts.map(\.event) == [.enter] && strict.missed.map(\.event) == [.enter])
        let lenient = VerifyScoring.score(expected: truth, received: received, devices: ["t"], fences: ["f"])
        #expect(lenient.matched == 2)
    }

    @Test func dwellIsMeasuredFromItsDueTime() {
        let truth = [ExpectedAlert(device: "t", fence: "d", event: .dwell, at: 100, due: 160, certainty: .expected)]
        let received = [alert("t", "d", .dwell, at: 100.4, confirmed: 161, seq: 1)]
        let report = VerifyScoring.score(expected: truth, received: received, devices: ["t"], fences: ["d"])
        #expect(report.matched == 1)
        #expect(report.delays?.max == 1)
        #expect(report.matchedList.hasSuffix(
            "  t dwell d due \(RFC3339.format(160)) confirmed \(RFC3339.format(161)) delay 1.0"), "\(report.matchedList)")
    }

    @Test func receiveDelayUsesTheWallClockMapping() {
        let truth = [expected("t", "f", .enter, at: 100)]
        var a = alert("t", "f", .enter, at: 100, confirmed: 120, seq: 1)
        a.received = 50.25
        // Wall time = sim time / 4 from 0: confirmed_at 120 was reached at wall 30.
        let report = VerifyScoring.score(
            expected: truth, received: [a], devices: ["t"], fences: ["f"], wallTime: { $0 / 4 })
        #expect(report.receiveDelays?.median == 20.25)
    }

    @Test func silentConfirmationsStayOutOfTheLatency() {
        let truth = [
            expected("t", "f", .enter, at: 100),
            ExpectedAlert(device: "t", fence: "f", event: .exit, at: 300, certainty: .expected, bySilence: true),
        ]
        var enter = alert("t", "f", .enter, at: 100, confirmed: 120, seq: 1)
        enter.received = 120.5
        var exit = alert("t", "f", .exit, at: 300, confirmed: 320, seq: 2)
        exit.received = 340
        let report = VerifyScoring.score(
            expected: truth, received: [enter, exit], devices: ["t"], fences: ["f"], wallTime: { $0 })
        #expect(report.matched == 2)
        #expect(report.confirmedBySilence == 1)
        #expect(report.receiveDelays?.count == 1)
        #expect(report.receiveDelays?.max == 0.5)
        #expect(report.description.contains("1 confirmed by silence not counted"))
    }

    @Test func percentilesAreNearestRank() {
        let stats = DelayStats((1...100).map(Double.init))!
        #expect(stats.median == 50)
        #expect(stats.p95 == 95)
        #expect(stats.max == 100)
        #expect(DelayStats([]) == nil)
        #expect(DelayStats([7])?.p95 == 7)
    }
}
