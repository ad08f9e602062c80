import Foundation
import Testing

@testable import GeofenceEngine

/// Which samples change a device's record in a way a restart must not forget (`recordChanged`,
/// which the service journals within a tick). Defaults: debounce 20 s, hysteresis 10 m.
@Suite("Record changes")
struct RecordChangeTests {
    static func at(_ d: Double, _ t: Double) -> PositionSample { sample(atBoundary(radius: 200, d: d), t: T0 + t) }

    @Test func jitterInTheBandAcrossTheBoundaryChangesNoRecord() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed([Self.at(-100, 0)])  // known outside
        #expect(h.outcomes[0].recordChanged)
        // 3 m inside, 3 m outside, ...: each inside sample starts a change, each outside one ends it.
        for k in 1...10 {
            h.feed([Self.at(k.isMultiple(of: 2) ? -3 : 3, Double(k) * 5)])
            #expect((h.engine.pendingChange(of: "truck-7", in: "f") != nil) == !k.isMultiple(of: 2))
        }
        #expect(h.outcomes.dropFirst().allSatisfy { !$0.recordChanged })
        #expect(h.alerts.isEmpty)
    }

    @Test func firstEvidenceAndTheEndOfAnEvidencedChangeChangeTheRecord() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed([Self.at(-100, 0), Self.at(3, 5), Self.at(30, 10), Self.at(5, 15), Self.at(-3, 20)])
        // known outside, in the band (no evidence), first evidence, still pending, called off
        #expect(h.outcomes.map(\.recordChanged) == [true, false, true, false, true])
        #expect(h.engine.pendingChange(of: "truck-7", in: "f") == nil)
    }

    @Test func aConfirmedChangeChangesTheRecord() throws {
        var h = try Harness([circle("f", radius: 200)])
        h.feed([Self.at(-100, 0), Self.at(30, 5), Self.at(30, 15)])
        let enter = try #require(h.feed([Self.at(30, 25)]).first)
        #expect(enter.event == .enter)
        #expect(h.outcomes.last?.recordChanged == true)
    }

    /// What the service risks by not journaling a change without evidence at once: a restart that
    /// forgets it (restored from the record before it) gives the same alert, at the same
    /// confirmation time.
    @Test func aRestartThatForgetsAChangeWithoutEvidenceAlertsTheSame() throws {
        let before = [Self.at(-100, 0), Self.at(-50, 5)]
        let jitter = [Self.at(3, 10), Self.at(-3, 15), Self.at(4, 20)]
        let crossing = [Self.at(30, 25), Self.at(30, 35), Self.at(30, 45)]

        var whole = try Harness([circle("f", radius: 200)])
        whole.feed(before + jitter + crossing)
        let expected = try #require(whole.alerts.first)

        var crashed = try Harness([circle("f", radius: 200)])
        crashed.feed(before)
        let journaled = try #require(crashed.engine.deviceRecord(for: "truck-7"))
        crashed.feed(jitter)
        #expect(crashed.outcomes.suffix(jitter.count).allSatisfy { !$0.recordChanged })

        var engine = GeofenceEngine()
        engine.restoreFences(crashed.engine.fenceRecords(), generation: crashed.engine.currentGeneration)
        engine.restore(journaled)
        var restarted = Harness(engine: engine)
        restarted.feed(crossing)
        let alert = try #require(restarted.alerts.first)
        #expect(restarted.alerts.count == 1)
        #expect(alert.event == expected.event)
        #expect(alert.confirmedAt == expected.confirmedAt)
        #expect(alert.seq == expected.seq)
    }
}
