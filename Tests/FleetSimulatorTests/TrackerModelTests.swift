import FleetFenceTesting
import Foundation
import Testing

extension EndToEndSuites {
    /// What real trackers send (docs/simulator.md "Tracker models"), verified end to end against
    /// the real `fleetfence serve`: coverage gaps whose backlog comes after the live fix (or behind
    /// later ones, before the debounce could confirm a crossing made in the gap), parked reporting,
    /// reports that jitter. Each model must verify clean (a backlog after the live fix, oldest or newest first),
    /// and a backlog sent live-first must give the alerts of
    /// the same backlog sent oldest-first (docs/rules.md "Late samples"). Multipath outliers are not among
    /// them: an outlier inside a debounce cancels it, as the rules say, and moves `at` (docs/simulator.md
    /// "Tracker models" gives the measured effect).
    @Suite("End to end: tracker models", .serialized)
    struct TrackerModelTests {
        static let models: [[String]] = [
            ["--gaps", "8", "--gap-length", "60-300", "--backlog", "live-first", "--jitter", "0.2", "--backlog-behind", "10"],
            ["--interval", "10", "--parked-interval", "120", "--gaps", "8", "--gap-length", "60-300", "--backlog", "live-first"],
            ["--interval", "10", "--gaps", "8", "--gap-length", "60-300", "--backlog", "newest-first", "--jitter", "0.2", "--backlog-behind", "2"],
        ]

        @Test(arguments: models)
        func verifiesClean(model: [String]) async throws {
            let run = try await Self.verifiedRun(model: model, seed: 5)
            let summary = ServiceEndToEndTests.Summary(run.output)
            #expect(run.status == 0, "\(run.context)")
            #expect(summary.result == "clean", "\(run.context)")
            #expect((summary.counts["expected"] ?? 0) >= ServiceEndToEndTests.trucks, "\(run.context)")
        }

        /// The same seeded fleet, from the same simulated start, against two fresh services: the
        /// matched alerts (with their delays, so their confirmed_at) are the same lines.
        @Test func aBacklogLiveFirstGivesTheAlertsOfTheSameBacklogOldestFirst() async throws {
            let start = String(Int(Date().timeIntervalSince1970) - 1_800)
            let gaps = ["--gaps", "10", "--gap-length", "60-300", "--start-time", start]
            let oldest = try await Self.verifiedRun(model: gaps + ["--backlog", "oldest-first"], seed: 6)
            let live = try await Self.verifiedRun(model: gaps + ["--backlog", "live-first"], seed: 6)
            #expect(oldest.status == 0 && live.status == 0, "\(oldest.context)\n\(live.context)")
            // Kind, device, fence and true crossing; confirmed_at may be the live fix's for a change
            // whose evidence began before the gap (docs/rules.md "Late samples").
            let matched = { (output: String) in
                output.split(separator: "\n").filter { $0.hasPrefix("  truck-") }.map { $0.components(separatedBy: " confirmed ")[0] }.sorted()
            }
            #expect(!matched(oldest.output).isEmpty, "\(oldest.context)")
            #expect(matched(live.output) == matched(oldest.output), "\(oldest.context)\n\(live.context)")
            #expect(live.serviceLog.contains(/late=[1-9]/), "backlogs were merged: \(live.context)")
        }

        static func verifiedRun(model: [String], seed: UInt64) async throws -> ServiceEndToEndTests.VerifiedRun {
            try await ServiceEndToEndTests.verifiedRun(
                clientID: "fleetfence-models-\(seed)", fleetsim: ServiceEndToEndTests.fleetsimArguments(broker: "{broker}", seed: seed) + model,
                statsInterval: 1)
        }
    }
}
