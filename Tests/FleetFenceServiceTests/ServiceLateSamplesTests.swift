import FleetFenceTesting
import Foundation
import Testing

/// docs/rules.md "Late samples" end to end: a tracker's live fix, then its backlog, over MQTT.
/// Debounce 2 s (the harness's); the depot is a 200 m circle.
@Suite("Service end to end: late samples", .timeLimit(.minutes(1)))
struct ServiceLateSamplesTests {
    /// A visit made wholly out of coverage: outside, then a backlog in and out again, sent after
    /// the live fix outside. Upload order: the live fix first.
    static let visit: [(north: Double, ts: Double)] = [
        (600, T), (500, T + 1), (100, T + 4), (0, T + 5), (0, T + 6), (0, T + 7), (100, T + 8),
        (500, T + 11), (600, T + 12), (700, T + 13), (800, T + 14), (900, T + 20),
    ]

    /// The merged alerts are those of the fixes uploaded oldest first: kinds, times and numbering.
    static func expect(_ merged: [Alert], asUploadedOldestFirst reference: [Alert], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(merged.map(\.event) == reference.map(\.event), sourceLocation: sourceLocation)
        #expect(merged.map { $0.json.string("at") } == reference.map { $0.json.string("at") }, sourceLocation: sourceLocation)
        #expect(
            merged.map { $0.json.string("confirmed_at") } == reference.map { $0.json.string("confirmed_at") },
            sourceLocation: sourceLocation)
        #expect(merged.map(\.seq) == reference.indices.map { $0 + 1 }, sourceLocation: sourceLocation)
    }

    @Test func aBacklogAfterItsLiveFixGivesTheAlertsOfAnUploadOldestFirst() async throws {
        var reference: [Alert] = []
        try await withService { h in
            for sample in Self.visit { try await h.position("in-order", north: sample.north, ts: sample.ts) }
            reference = await h.waitForAlerts("in-order", count: 2)
        }
        try #require(reference.map(\.event) == ["enter", "exit"], "\(reference)")
        try await withService { h in
            let live = Self.visit.count - 1
            try await h.position("live-first", north: Self.visit[0].north, ts: Self.visit[0].ts)
            try await h.position("live-first", north: Self.visit[live].north, ts: Self.visit[live].ts)
            for sample in Self.visit[1..<live] { try await h.position("live-first", north: sample.north, ts: sample.ts) }
            // The backlog is merged once it has ended: here the tracker's next live fix ends it.
            try await h.position("live-first", north: 900, ts: Self.visit[live].ts + 5)
            let merged = await h.waitForAlerts("live-first", count: 2)
            Self.expect(merged, asUploadedOldestFirst: reference)
            // The retained state keeps the newest sample, outside: shown again, since the merge
            // went in and out, so that its `at` is not the first fix's, older than the exit.
            let state = try await h.retained("fleetfence/state/live-first")
            #expect(state.last.flatMap { JSONObject($0.payload) }?.strings("inside") == [])
            #expect(state.last.flatMap { JSONObject($0.payload) }?.string("at") == rfc3339(Self.visit[live].ts + 5), "\(state)")
            #expect(await h.waitForLog("late=\(live - 1) too_late=0"), "merges counted in the stats line")
        }
    }

    /// A tracker's very first message may be its live fix, its backlog behind it (a truck switched
    /// on out of coverage): merged as the backlog of any other device.
    @Test func aBacklogBehindADevicesFirstMessageIsMerged() async throws {
        var reference: [Alert] = []
        try await withService { h in
            for sample in Self.visit { try await h.position("in-order", north: sample.north, ts: sample.ts) }
            reference = await h.waitForAlerts("in-order", count: 2)
        }
        try await withService { h in
            let live = Self.visit.count - 1
            try await h.position("switched-on", north: Self.visit[live].north, ts: Self.visit[live].ts)
            for sample in Self.visit[..<live].reversed() {
                try await h.position("switched-on", north: sample.north, ts: sample.ts)
            }
            try await h.position("switched-on", north: 900, ts: Self.visit[live].ts + 5)
            let merged = await h.waitForAlerts("switched-on", count: 2)
            Self.expect(merged, asUploadedOldestFirst: reference)
            #expect(await h.waitForLog("late=\(live) too_late=0"), "merges counted in the stats line")
        }
    }

    /// The backlog newest first, and then nothing: merged once the device has been quiet for
    /// `silent_confirm_s` (the harness's 30 s, on the service's clock).
    @Test func aBacklogNewestFirstIsMergedOnceTheDeviceIsQuiet() async throws {
        var reference: [Alert] = []
        try await withService { h in
            for sample in Self.visit { try await h.position("in-order", north: sample.north, ts: sample.ts) }
            reference = await h.waitForAlerts("in-order", count: 2)
        }
        var options = HarnessOptions()
        options.manualClock = true
        try await withService(options) { h in
            let live = Self.visit.count - 1
            try await h.position("newest-first", north: Self.visit[0].north, ts: Self.visit[0].ts)
            try await h.position("newest-first", north: Self.visit[live].north, ts: Self.visit[live].ts)
            for sample in Self.visit[1..<live].reversed() {
                try await h.position("newest-first", north: sample.north, ts: sample.ts)
            }
            try await h.barrier()
            try await h.advance(by: 29)
            #expect(h.alerts("newest-first").isEmpty, "quiet for less than silent_confirm_s: the backlog may go on")
            try await h.advance(by: 2)
            let merged = await h.waitForAlerts("newest-first", count: 2)
            Self.expect(merged, asUploadedOldestFirst: reference)
        }
    }

    /// A backlog still arriving when the service stops cleanly is merged first: its alerts go out
    /// before `offline`.
    @Test func aBacklogStillArrivingIsMergedAtACleanStop() async throws {
        try await withService { h in
            let live = Self.visit.count - 1
            try await h.position("stopping", north: Self.visit[0].north, ts: Self.visit[0].ts)
            try await h.position("stopping", north: Self.visit[live].north, ts: Self.visit[live].ts)
            for sample in Self.visit[1..<live].reversed() { try await h.position("stopping", north: sample.north, ts: sample.ts) }
            try await h.barrier()
            #expect(h.alerts("stopping").isEmpty, "held: the backlog may go on")
            #expect(await h.service?.terminate() == 0)
            let all = h.messages("fleetfence/#")
            let topics = all.map(\.topic)
            let offline = try #require(all.lastIndex { $0.topic == "fleetfence/status" && $0.text == "offline" })
            let alertTopics = topics.indices.filter { topics[$0].hasPrefix("fleetfence/alerts/stopping/") }
            #expect(alertTopics.map { topics[$0] } == ["fleetfence/alerts/stopping/depot/enter", "fleetfence/alerts/stopping/depot/exit"])
            #expect(alertTopics.allSatisfy { $0 < offline }, "\(topics)")
        }
    }

    @Test func olderThanTheWindowIsTooLate() async throws {
        var options = HarnessOptions()
        options[.lateWindow] = "5"
        try await withService(options) { h in
            try await h.position("w", north: 600, ts: T)
            try await h.position("w", north: 600, ts: T + 10)
            try await h.position("w", north: 0, ts: T + 3)  // 7 s behind: too late
            try await h.position("w", north: 0, ts: T + 6)  // 4 s behind: merged
            try await h.barrier()
            #expect(await h.waitForLog("late=1 too_late=1"))
            #expect(h.errors("w").isEmpty, "late samples are not errors")
        }
    }
}
