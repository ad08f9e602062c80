import GeofenceEngine
import Testing
@testable import FleetSimulator

/// Alerts that name their instance (docs/several-instances.md "Several instances"): counted per instance, and a
/// device that two instances alert is shown, its second instance's alerts scored as false.
@Suite("Verify scoring by instance")
struct VerifyInstancesTests {
    func alert(_ device: String, _ event: AlertEvent, at: Double, seq: UInt64, from instance: String) -> ReceivedAlert {
        ReceivedAlert(event: event, device: device, fence: "wdf01", at: at, confirmedAt: at + 21, seq: seq, instance: instance)
    }

    let truth = [
        ExpectedAlert(device: "truck-1", fence: "wdf01", event: .enter, at: 100, certainty: .expected),
        ExpectedAlert(device: "truck-2", fence: "wdf01", event: .enter, at: 100, certainty: .expected),
    ]

    @Test func eachDeviceFromOneInstanceIsClean() {
        let report = VerifyScoring.score(
            expected: truth,
            received: [
                alert("truck-1", .enter, at: 101, seq: 1, from: "p0"),
                alert("truck-1", .enter, at: 101, seq: 1, from: "p0"),  // redelivered
                alert("truck-2", .enter, at: 101, seq: 1, from: "p1"),
            ],
            devices: ["truck-1", "truck-2"], fences: ["wdf01"])
        #expect(report.isClean)
        #expect(report.duplicates == 1)
        #expect(report.alertsByInstance == ["p0": 1, "p1": 1])
        #expect(report.devicesOnSeveralInstances.isEmpty)
        #expect(report.summary.contains("  instances p0 1, p1 1; devices alerted by more than one: 0"))
    }

    /// Two instances on one partition both alert its devices, each with its own seq: the same seq
    /// from another instance is no redelivery.
    @Test func aDeviceOfTwoInstancesIsShownAndItsSecondAlertIsFalse() {
        let report = VerifyScoring.score(
            expected: truth,
            received: [
                alert("truck-1", .enter, at: 101, seq: 1, from: "p0"),
                alert("truck-1", .enter, at: 101, seq: 1, from: "p0b"),
                alert("truck-2", .enter, at: 101, seq: 1, from: "p1"),
            ],
            devices: ["truck-1", "truck-2"], fences: ["wdf01"])
        #expect(report.duplicates == 0)
        #expect(report.matched == 2)
        #expect(report.falseAlerts.map(\.device) == ["truck-1"])
        #expect(report.devicesOnSeveralInstances == ["truck-1": ["p0", "p0b"]])
        #expect(report.summary.contains("  truck-1: p0, p0b"))
    }

    @Test func alertsWithoutAnInstanceAreCountedAsBefore() {
        let plain = ReceivedAlert(event: .enter, device: "truck-1", fence: "wdf01", at: 101, confirmedAt: 122, seq: 1)
        let report = VerifyScoring.score(
            expected: [truth[0]], received: [plain, plain], devices: ["truck-1"], fences: ["wdf01"])
        #expect(report.isClean)
        #expect(report.duplicates == 1)
        #expect(report.alertsByInstance.isEmpty)
        #expect(!report.summary.contains("instances"))
    }

    @Test func theInstanceIsReadFromTheAlert() throws {
        let alert = try ReceivedAlert.decode(Array("""
            {"event":"enter","device":"truck-3","fence":"wdf01","at":"2026-11-22T10:00:05.000Z","confirmed_at":"2026-11-22T10:00:30.000Z","seq":1,"instance":"p1"}
            """.utf8))
        #expect(alert.instance == "p1")
    }
}
