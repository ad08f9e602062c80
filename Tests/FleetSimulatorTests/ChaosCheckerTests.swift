import Foundation
import Testing

/// The chaos schedule and checker on their own: what a seed draws, and what each check counts
/// (docs/reliability.md).
@Suite("Chaos schedule and checker")
struct ChaosCheckerTests {
    // MARK: Schedule

    @Test func aSeedDrawsTheSameFaultsEveryTime() {
        for seed: UInt64 in 1...50 {
            let a = ChaosSchedule(seed: seed, profile: .campaign, publishingSeconds: 15)
            let b = ChaosSchedule(seed: seed, profile: .campaign, publishingSeconds: 15)
            #expect(a.faults == b.faults)
            #expect((2...3).contains(a.faults.filter { $0.kind != .journalFull }.count), "\(a)")
            #expect(a.kinds.count == a.faults.count, "kinds repeat: \(a)")
            for fault in a.faults {
                #expect((1.5...12.0).contains(fault.at), "\(a)")
                let range = ChaosSchedule.Profile.campaign.durations[fault.kind]!
                #expect(fault.duration >= range.lowerBound - 0.05 && fault.duration <= range.upperBound + 0.05, "\(a)")
            }
            #expect(a.faults.map(\.at) == a.faults.map(\.at).sorted())
        }
    }

    @Test(arguments: [ChaosSchedule.Profile.campaign, .cluster])
    func fiftySeedsTryEveryFaultAndLongPauses(profile: ChaosSchedule.Profile) {
        let schedules = (UInt64(1)...50).map { ChaosSchedule(seed: $0, profile: profile, publishingSeconds: 15) }
        var counts: [ChaosSchedule.Kind: Int] = [:]
        for kind in schedules.flatMap(\.kinds) { counts[kind, default: 0] += 1 }
        let kinds = profile.kinds + (profile.occasional.map { [$0.kind] } ?? [])
        for kind in kinds { #expect(counts[kind, default: 0] >= 10, "\(counts)") }
        #expect(Set(counts.keys) == Set(kinds), "\(counts)")
        let pauses = schedules.flatMap(\.faults).filter { $0.kind == .servicePause }.map(\.duration)
        #expect(pauses.contains { $0 >= 30 } && pauses.contains { $0 < 10 }, "\(pauses)")
    }

    /// The journal's disk was added to the campaign after seeds 1-70 ran: it comes from a stream
    /// of its own, so every seed's other faults are still those docs/reliability.md lists.
    @Test func theOccasionalFaultLeavesTheOthersAsTheyWere() {
        var without = ChaosSchedule.Profile.campaign
        without.occasional = nil
        var added = 0
        for seed: UInt64 in 1...70 {
            let with = ChaosSchedule(seed: seed, profile: .campaign, publishingSeconds: 15)
            let before = ChaosSchedule(seed: seed, profile: without, publishingSeconds: 15)
            #expect(with.faults.filter { $0.kind != .journalFull } == before.faults, "seed \(seed)")
            added += with.faults.count - before.faults.count
        }
        #expect((20...50).contains(added), "\(added) of 70 seeds fill the journal's disk")
        // Seed 3 as run: a broker pause, then a kill of the service.
        let three = ChaosSchedule(seed: 3, profile: without, publishingSeconds: 15)
        #expect(three.faults.map(\.kind) == [.brokerPause, .serviceKill], "\(three)")
    }

    @Test func clusterFaultsNameAnInstanceOrANodeThatExists() {
        var targets: Set<String> = []
        for seed: UInt64 in 1...50 {
            let schedule = ChaosSchedule(seed: seed, profile: .cluster, publishingSeconds: 15)
            #expect(schedule.topology == .cluster)
            for fault in schedule.faults {
                switch fault.kind {
                case .serviceKill, .servicePause:
                    #expect((0..<ChaosSchedule.clusterPartitions).contains(fault.target))
                    #expect("\(fault)".contains("instance p\(fault.target) "), "\(fault)")
                    targets.insert("p\(fault.target)")
                case .nodeKill, .nodePause:
                    #expect((0..<3).contains(fault.target))
                    targets.insert("n\(fault.target + 1)")
                default: #expect(fault.target == 0)
                }
            }
        }
        #expect(targets == ["p0", "p1", "n1", "n2", "n3"], "\(targets)")
    }

    @Test func theTestCommandsSeedHoldsAKillAndAPause() {
        let schedule = ChaosSchedule(seed: EndToEndSuites.ChaosCampaignTests.shortSeed, profile: .short, publishingSeconds: 15)
        #expect(schedule.kinds == [.serviceKill, .servicePause], "\(schedule)")
    }

    @Test func theScheduleReadsAsTheRunPrintsIt() {
        let schedule = ChaosSchedule(seed: 7, profile: .campaign, publishingSeconds: 15)
        let text = "\(schedule)"
        #expect(text.hasPrefix("[t=") && text.hasSuffix("]"), "\(text)")
        #expect(text.split(separator: ",").count == schedule.faults.count, "\(text)")
    }

    @Test func seedListsAreReadExactly() throws {
        #expect(try ChaosSchedule.seeds(from: nil) == [])
        #expect(try ChaosSchedule.seeds(from: "7") == [7])
        #expect(try ChaosSchedule.seeds(from: "1-3,9") == [1, 2, 3, 9])
        #expect(throws: (any Error).self) { try ChaosSchedule.seeds(from: "1-") }
        #expect(throws: (any Error).self) { try ChaosSchedule.seeds(from: "5-2") }
        #expect(throws: (any Error).self) { try ChaosSchedule.seeds(from: "seven") }
    }

    // MARK: Checker

    static func alert(_ device: String, _ seq: UInt64, fence: String = "wdf01", event: String = "enter") -> ChaosChecker.Alert {
        let payload = #"{"event":"\#(event)","device":"\#(device)","fence":"\#(fence)","at":"2026-11-25T09:47:05.195Z","confirmed_at":"2026-11-25T09:47:08.000Z","lat":49.2,"lon":8.6,"seq":\#(seq)}"#
        return ChaosChecker.Alert(payload: Array(payload.utf8))!
    }

    /// Two devices, every alert everywhere, states agreeing.
    static var clean: ChaosChecker {
        var checker = ChaosChecker()
        let all = [alert("t1", 1), alert("t1", 2, event: "exit"), alert("t2", 1)]
        checker.expected = 3
        checker.mqtt = all
        checker.webhook = all
        checker.journal = all
        checker.journalStates = ["t1": [], "t2": ["wdf01"]]
        checker.retainedStates = ["t1": [], "t2": ["wdf01"]]
        return checker
    }

    @Test func aCleanRunPassesAndRedeliveriesAreCountedNotFailed() {
        var checker = Self.clean
        checker.mqtt.append(Self.alert("t1", 2, event: "exit"))
        checker.webhook.append(Self.alert("t2", 1))
        let verdict = checker.check()
        #expect(verdict.passed, "\(verdict.problems)")
        #expect(verdict.delivered == 3 && verdict.duplicates == 1 && verdict.webhookDuplicates == 1)
    }

    @Test func eachBrokenPromiseIsCounted() {
        var conflicting = Self.clean
        conflicting.mqtt.append(Self.alert("t1", 2, event: "dwell"))
        #expect(conflicting.check().conflicting == 1)

        var journaledTwice = Self.clean
        journaledTwice.journal.append(Self.alert("t2", 1))
        #expect(journaledTwice.check().conflicting == 1)

        var unjournaled = Self.clean
        unjournaled.mqtt.append(Self.alert("t2", 2))
        let phantom = unjournaled.check()
        #expect(phantom.phantom == 1 && !phantom.passed)
        // The journal lacks a seq the outputs carried: a gap too.
        #expect(phantom.gaps == 1)

        var gap = Self.clean
        let third = Self.alert("t1", 4)
        gap.journal.append(third)
        gap.mqtt.append(third)
        gap.webhook.append(third)
        #expect(gap.check().gaps == 1)

        var lostOnMQTT = Self.clean
        lostOnMQTT.mqtt.removeFirst()
        #expect(lostOnMQTT.check().mqttMissing == 1)

        var lostOnWebhook = Self.clean
        lostOnWebhook.webhook.removeLast()
        #expect(lostOnWebhook.check().webhookMissing == 1)

        var state = Self.clean
        state.retainedStates["t1"] = ["wdf01"]
        #expect(state.check().stateMismatch == 1)

        var falseAndMissed = Self.clean
        falseAndMissed.falseAlerts = ["t1 enter gatehouse seq 9"]
        falseAndMissed.missed = ["t2 exit wdf01"]
        let verdict = falseAndMissed.check()
        #expect(verdict.phantom == 1 && verdict.missed == 1 && !verdict.passed)
    }
}
