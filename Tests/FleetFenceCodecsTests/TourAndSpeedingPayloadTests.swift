import Foundation
import GeofenceEngine
import Testing
@testable import FleetFenceCodecs

/// docs/rules.md "The rules" and "Tours": the speeding alert, the tour events and the retained progress.
@Suite("Payloads out: speeding, tour events, progress")
struct TourAndSpeedingPayloadTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func speedingAddsTheEpisodesMaximumAndTheLimit() {
        let t = Transition(
            event: .speeding, device: "truck-7", fenceID: "school", fenceName: "School zone",
            at: RFC3339.parse("2026-11-22T10:00:05Z")!, confirmedAt: RFC3339.parse("2026-11-22T10:00:25Z")!,
            lat: 49.2931, lon: 8.6413, radiusMeters: 150, seq: 9, maxSpeedKmh: 13.4 * 3.6, limitKmh: 30)
        #expect(text(AlertPayload.encode(t))
            == #"{"event":"speeding","device":"truck-7","fence":"school","name":"School zone","at":"2026-11-22T10:00:05.000Z","confirmed_at":"2026-11-22T10:00:25.000Z","lat":49.2931,"lon":8.6413,"radius_m":150,"seq":9,"max_speed_kmh":48.24,"limit_kmh":30}"#)
    }

    @Test func tourEvents() {
        let visited = Transition(
            event: .stopVisited, device: "truck-7", fenceID: "c2", fenceName: "Customer 2", at: RFC3339.parse("2026-11-22T10:00:05.5Z")!,
            confirmedAt: RFC3339.parse("2026-11-22T10:00:30Z")!, lat: 49, lon: 8, radiusMeters: 80, seq: 43, tourID: "r1", stopIndex: 2)
        #expect(text(AlertPayload.encode(visited))
            == #"{"event":"stop_visited","device":"truck-7","tour":"r1","stop":"c2","stop_index":2,"at":"2026-11-22T10:00:05.500Z","seq":43}"#)
        var skipped = visited
        skipped.event = .stopSkipped
        skipped.fenceID = "c1"
        skipped.stopIndex = 1
        #expect(text(AlertPayload.encode(skipped))
            == #"{"event":"stop_skipped","device":"truck-7","tour":"r1","stop":"c1","stop_index":1,"at":"2026-11-22T10:00:05.500Z","seq":43}"#)
        var completed = visited
        completed.event = .tourCompleted
        completed.durationSeconds = 3_600.0004
        #expect(text(AlertPayload.encode(completed))
            == #"{"event":"tour_completed","device":"truck-7","tour":"r1","stop":"c2","stop_index":2,"at":"2026-11-22T10:00:05.500Z","seq":43,"duration_s":3600}"#)
    }

    @Test func progress() throws {
        let report = TourProgressReport(
            device: "truck-7", tour: "r1", round: 2, nextStop: "c3",
            visited: [.init(stop: "depot", at: RFC3339.parse("2026-11-22T08:00:00Z")!), .init(stop: "c2", at: RFC3339.parse("2026-11-22T09:00:00.25Z")!)],
            skipped: ["c1"])
        #expect(text(TourProgressPayload.encode(report))
            == #"{"device":"truck-7","tour":"r1","round":2,"next_stop":"c3","visited":[{"stop":"depot","at":"2026-11-22T08:00:00.000Z"},{"stop":"c2","at":"2026-11-22T09:00:00.250Z"}],"skipped":["c1"]}"#)
        let done = TourProgressReport(device: "d", tour: "t", round: 1, nextStop: nil, visited: [], skipped: [])
        #expect(text(TourProgressPayload.encode(done)) == #"{"device":"d","tour":"t","round":1,"next_stop":null,"visited":[],"skipped":[]}"#)
    }
}
