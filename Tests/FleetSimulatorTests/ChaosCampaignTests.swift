import Foundation
import Testing

extension EndToEndSuites {
    /// Seeded faults during a verified run, every output checked (docs/reliability.md): the test
    /// command runs one short seed; `Scripts/chaos` runs the long campaign through the same code,
    /// one seed after another, with `FLEETFENCE_CHAOS_SEEDS` set.
    @Suite("Chaos campaign: seeded faults, every output checked", .serialized, .timeLimit(.minutes(5)))
    struct ChaosCampaignTests {
        /// Seed 35 of the short profile holds a kill of the service and a pause longer than its
        /// silent confirmation (checked below): the journal across a restart, and a process that
        /// stops running while its devices keep reporting.
        static let shortSeed: UInt64 = 35

        @Test func aShortSeededRunWithAKillAndAPauseKeepsEveryPromise() async throws {
            let outcome = try await ChaosCampaign.run(seed: Self.shortSeed, profile: .short)
            ChaosCampaign.say(outcome.line, result: true)
            #expect(outcome.schedule.kinds == [.serviceKill, .servicePause], "\(outcome.schedule)")
            #expect(outcome.verdict.passed, "\(outcome.line)\n\(outcome.context)")
            // Meaningful: the run alerted what the routes hold.
            #expect(outcome.verdict.expected >= 2 * ChaosCampaign.trucks, "\(outcome.line)")
        }

        static let campaignSeeds = ProcessInfo.processInfo.environment["FLEETFENCE_CHAOS_SEEDS"]
        /// `cluster` for the NATS cluster's profile (`Scripts/chaos --cluster`); the single
        /// instance on mosquitto otherwise.
        static let campaignProfile: ChaosSchedule.Profile =
            ProcessInfo.processInfo.environment["FLEETFENCE_CHAOS_PROFILE"] == "cluster" ? .cluster : .campaign

        /// A seed list that does not read (`1-`, `seven`) fails here rather than running no seed.
        @Test(.enabled(if: campaignSeeds != nil, "run by Scripts/chaos, which sets FLEETFENCE_CHAOS_SEEDS"))
        func campaignSeedsRead() throws {
            #expect(try !ChaosSchedule.seeds(from: Self.campaignSeeds).isEmpty)
        }

        /// The long campaign: `Scripts/chaos` sets `FLEETFENCE_CHAOS_SEEDS` (`1-50`, `7`, `3,9`) and,
        /// with `--cluster`, `FLEETFENCE_CHAOS_PROFILE`.
        @Test(
            .enabled(if: campaignSeeds != nil, "run by Scripts/chaos, which sets FLEETFENCE_CHAOS_SEEDS"),
            arguments: (try? ChaosSchedule.seeds(from: campaignSeeds)) ?? [])
        func campaign(seed: UInt64) async throws {
            let outcome: ChaosCampaign.Outcome
            do {
                outcome = try await ChaosCampaign.run(seed: seed, profile: Self.campaignProfile)
            } catch {
                ChaosCampaign.say("seed=\(seed) ERROR \(error)", result: true)
                throw error
            }
            ChaosCampaign.say(outcome.line, result: true)
            if !outcome.verdict.passed { ChaosCampaign.say("seed=\(seed) context:\n\(outcome.context)") }
            #expect(outcome.verdict.passed, "\(outcome.line)")
        }
    }
}
