import FleetFenceCodecs
import FleetFenceJournal
import Foundation
import GeofenceEngine
import Testing

@testable import FleetFenceService

/// Positions over HTTP through the core (docs/trackers.md "Connecting trackers"): each element's outcome in
/// order, refusals counted but said to the caller only, and the same engine as MQTT positions.
@Suite("GeofenceCore: HTTP ingest")
struct GeofenceCoreIngestTests {
    static let centre = Coordinate(lat: 49.293406, lon: 8.641362)
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    static func at(_ device: String, north metres: Double, ts: Double) -> Result<ForeignPosition, PositionRejection> {
        .success(ForeignPosition(
            device: device, position: DecodedPosition(lat: centre.lat + metres / metresPerDegree, lon: centre.lon, timestamp: ts)))
    }

    /// A core with one fence, `depot`, 200 m around `centre`.
    static func core() throws -> GeofenceCore {
        var core = GeofenceCore(
            engine: GeofenceEngine(settings: GeofenceSettings(debounceSeconds: 2, silentConfirmSeconds: 5)),
            layout: TopicLayout(prefix: "ff"), positionFilters: ["fleet/+/position"])
        _ = try core.setFence(
            FenceDefinition(id: "depot", name: "Depot", shape: .circle(center: Self.centre, radius: 200)), origin: .runtime)
        return core
    }

    @Test func outcomesInOrderAndTheSameCountersAsMQTT() throws {
        var core = try Self.core()
        let (effects, outcomes) = core.ingest(
            [
                Self.at("d", north: 300, ts: 1_000),
                .failure(.missingField("id")),
                Self.at("d", north: 100, ts: 1_010),  // after a 10 s gap: a backlog may follow
                Self.at("d", north: 100, ts: 1_009),  // older: merged (docs/rules.md "Late samples")
                Self.at("d", north: 100, ts: 1_010),  // a repeat: stale
                Self.at("d", north: 100, ts: 1_013),
                Self.at("d", north: 100, ts: 1_013 - 3_601),  // past geofence.late_window_s: too late
                .failure(.ignored(reason: "not a location")),
                Self.at("e", north: 0, ts: 5_000),
            ],
            source: "POST /api/positions", arrival: 1_010)
        #expect(outcomes == [
            .accepted, .rejected(#"missing field "id""#), .accepted, .late, .stale, .accepted, .tooLate,
            .ignored("ignored: not a location"),
            .rejected("ts is 3990 s ahead of its arrival, at most 300 s are accepted (geofence.max_future_s)"),
        ])
        // 1013 came while the backlog before 1010 had not filled its gap (9 s, after 1000): it
        // joined it, and the merge, once the upload has paused, gives the enter.
        #expect(effects.changes.alerts.isEmpty)
        let merged = core.tick(now: 1_010 + 5)  // an upload paused 5 s has ended
        #expect(merged.changes.alerts.map(\.transition.event) == [.enter])
        #expect(!effects.messages.contains { $0.topic.hasPrefix("ff/errors/") }, "refusals go to the caller, not the errors topic")
        #expect(core.counters.rejected == 2 && core.counters.ignored == 1)
        // Each outcome answered is the one counted.
        #expect(core.engine.counters.stale == 1 && core.engine.counters.late == 1 && core.engine.counters.tooLate == 1)
        #expect(core.readCounters.positions == 6)
    }

    /// Two devices that alert in one HTTP batch (one step): each one's record rides with its
    /// own alert, the first not replaced by the second.
    @Test func eachAlertingDevicesRecordRidesWithTheBatch() throws {
        var core = try Self.core()
        _ = core.ingest(
            [Self.at("a", north: 300, ts: 1_000), Self.at("b", north: 300, ts: 1_000),
             Self.at("a", north: 100, ts: 1_001), Self.at("b", north: 100, ts: 1_001)],
            source: "POST /api/positions", arrival: 1_001)
        let (effects, _) = core.ingest(
            [Self.at("a", north: 100, ts: 1_004), Self.at("b", north: 100, ts: 1_004)],
            source: "POST /api/positions", arrival: 1_004)
        #expect(effects.changes.alerts.map(\.transition.device) == ["a", "b"])
        #expect(effects.changes.devices.map(\.device) == ["a", "b"])
        #expect(effects.changes.devices.allSatisfy { $0.regions.first?.state == .inside })
    }
}
