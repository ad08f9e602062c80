import FleetFenceTesting
import Foundation
import SeededRandom

/// The faults of one chaos run, drawn from a seed alone (docs/reliability.md): the same seed gives
/// the same faults at the same times, so a failing run is replayed with `Scripts/chaos --seed N`.
///
/// Faults of the service and the broker come one after another (a fault starts once the one
/// before it is over); the webhook receiver's outage runs beside them.
struct ChaosSchedule: Sendable, CustomStringConvertible {
    /// Only appended to: a seed's draw depends on each profile's list, never on this order.
    enum Kind: String, CaseIterable, Sendable, Comparable {
        case serviceKill, servicePause, brokerPause, brokerKill, webhookDown
        /// A NATS node: SIGKILL and a restart with its store, or SIGSTOP and SIGCONT.
        case nodeKill, nodePause
        /// The journal's file system filled (a tmpfs of the run's own) and freed again.
        case journalFull

        static func < (a: Kind, b: Kind) -> Bool { allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)! }

        /// Whether it stops the service or the broker, and so waits for the fault before it.
        var isProcessFault: Bool { self != .webhookDown }
    }

    /// What a run stands on: one mosquitto and one service, or the three-node NATS cluster with
    /// one instance per partition (docs/several-instances.md "Several instances").
    enum Topology: String, Sendable {
        case mosquitto, cluster

        var instances: Int { self == .mosquitto ? 1 : ChaosSchedule.clusterPartitions }
        var nodes: Int { self == .mosquitto ? 1 : 3 }
    }

    static let clusterPartitions = 2

    struct Fault: Sendable, Hashable, CustomStringConvertible {
        var kind: Kind
        /// Wall seconds after the run's first position.
        var at: Double
        /// The instance (service faults) or NATS node (node faults) struck, from 0; 0 elsewhere.
        var target = 0
        /// A kill: seconds down before the restart. A pause: seconds stopped. The webhook: seconds
        /// its port refuses connections.
        var duration: Double

        var description: String {
            let t = String(format: "t=%.1fs", at), d = String(format: "%.1fs", duration)
            return switch kind {
            case .serviceKill: "\(t) \(service) SIGKILL down \(d)"
            case .servicePause: "\(t) \(service) SIGSTOP \(d)"
            case .brokerPause: "\(t) broker SIGSTOP \(d)"
            // docs/operations.md "Crashes and restarts": a killed broker forgets what changed since its last
            // save, so the kill waits for the save that follows `t`.
            case .brokerKill: "\(t) broker SIGKILL after its next save down \(d)"
            case .webhookDown: "\(t) webhook down \(d)"
            case .nodeKill: "\(t) node n\(target + 1) SIGKILL down \(d)"
            case .nodePause: "\(t) node n\(target + 1) SIGSTOP \(d)"
            case .journalFull: "\(t) journal's disk full \(d)"
            }
        }

        /// `service` alone, or `instance p1` on the cluster: a mosquitto run's lines read as before.
        var service: String { instanced ? "instance p\(target)" : "service" }
        var instanced = false
    }

    /// How long faults last, and where in the run they may start.
    struct Profile: Sendable {
        var name: String
        var topology = Topology.mosquitto
        /// The kinds drawn from, in this order, without repeating.
        var kinds: [Kind] = [.serviceKill, .servicePause, .brokerPause, .brokerKill, .webhookDown]
        /// The part of the publishing time in which faults start (fractions of it).
        var window: ClosedRange<Double>
        var faults: ClosedRange<Int>
        var durations: [Kind: ClosedRange<Double>]
        /// A kind added beside the drawn ones in this share of the seeds, drawn from a stream of
        /// its own: adding it to a profile leaves every seed's other faults as they were.
        var occasional: (kind: Kind, share: Double)?

        /// The test command's run: two faults of a few seconds each.
        static let short = Profile(
            name: "short", window: 0.15...0.6, faults: 2...2,
            durations: [
                .serviceKill: 1...3, .servicePause: 2...6, .brokerPause: 1...4, .brokerKill: 1...2, .webhookDown: 2...8,
            ])

        /// The long campaign (`Scripts/chaos`): the service paused for 5 to 60 s, which outlasts
        /// the routes' publishing and so the run waits for it; the webhook receiver down for up to
        /// 20 s, whose back-off (1 s doubling, docs/webhooks.md "Webhooks") then delays the rest by about as
        /// long.
        ///
        /// In half the seeds the journal's disk also fills, for 2 to 20 s: the service stops (a
        /// journal that cannot be written, docs/operations.md "Limits and failures") and the run
        /// restarts it as a supervisor would, every second until it serves again.
        static let campaign = Profile(
            name: "campaign", window: 0.1...0.8, faults: 2...3,
            durations: [
                .serviceKill: 1...10, .servicePause: 5...60, .brokerPause: 2...20, .brokerKill: 1...5, .webhookDown: 3...20,
                .journalFull: 2...20,
            ],
            occasional: (.journalFull, 0.5))

        /// The three-node NATS cluster with two instances (`Scripts/chaos --cluster`): an instance
        /// killed or paused, a node killed and restarted or paused, the webhook's receiver down.
        static let cluster = Profile(
            name: "cluster", topology: .cluster, kinds: [.serviceKill, .servicePause, .nodeKill, .nodePause, .webhookDown],
            window: 0.1...0.8, faults: 2...3,
            durations: [.serviceKill: 1...10, .servicePause: 5...60, .nodeKill: 1...10, .nodePause: 5...60, .webhookDown: 3...20])
    }

    let seed: UInt64
    let profile: String
    let topology: Topology
    /// In the order of their start.
    let faults: [Fault]

    /// - Parameter publishingSeconds: how long the run's positions take to publish, wall seconds:
    ///   faults start inside that, so that each meets traffic.
    init(seed: UInt64, profile: Profile, publishingSeconds: Double) {
        self.seed = seed
        self.profile = profile.name
        // A stream of its own: the fleet's noise uses the same seed.
        var random = SeededRandom(seed: seed, stream: 0xC4A0_5)
        func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUnit()
        }
        let count = profile.faults.lowerBound
            + Int(random.next() % UInt64(profile.faults.upperBound - profile.faults.lowerBound + 1))
        // Distinct kinds, drawn without repeating.
        var kinds: [Kind] = []
        var others = profile.kinds
        while kinds.count < count, !others.isEmpty {
            kinds.append(others.remove(at: Int(random.next() % UInt64(others.count))))
        }
        let start = publishingSeconds * profile.window.lowerBound, end = publishingSeconds * profile.window.upperBound
        var faults = kinds.map { Fault(kind: $0, at: 0, duration: 0) }
        for index in faults.indices {
            faults[index].at = (uniform(start...end) * 10).rounded() / 10
            // Log-uniform: a pause of 5-10 s as likely as one of 30-60 s, so that long pauses are
            // tried without making every run long.
            let range = profile.durations[faults[index].kind]!
            let drawn = exp(uniform(log(range.lowerBound)...log(range.upperBound)))
            faults[index].duration = (drawn * 10).rounded() / 10
        }
        // Drawn after the rest, each from a stream of its own, so that the draws above stay as
        // they were when these were added.
        if let (kind, share) = profile.occasional {
            var own = SeededRandom(seed: seed, stream: 0xC4A0_6)
            if own.nextUnit() < share {
                let at = start + (end - start) * own.nextUnit()
                let range = profile.durations[kind]!
                let drawn = exp(log(range.lowerBound) + (log(range.upperBound) - log(range.lowerBound)) * own.nextUnit())
                faults.append(Fault(kind: kind, at: (at * 10).rounded() / 10, duration: (drawn * 10).rounded() / 10))
            }
        }
        if profile.topology == .cluster {
            var own = SeededRandom(seed: seed, stream: 0xC4A0_7)
            for index in faults.indices {
                switch faults[index].kind {
                case .serviceKill, .servicePause:
                    faults[index].target = Int(own.next() % UInt64(profile.topology.instances))
                    faults[index].instanced = true
                case .nodeKill, .nodePause: faults[index].target = Int(own.next() % UInt64(profile.topology.nodes))
                default: break
                }
            }
        }
        self.topology = profile.topology
        self.faults = faults.sorted { ($0.at, $0.kind) < ($1.at, $1.kind) }
    }

    var kinds: Set<Kind> { Set(faults.map(\.kind)) }

    /// `[t=12.0s service SIGSTOP 8.0s, t=25.1s broker SIGKILL after its next save down 2.0s]`
    var description: String { "[" + faults.map(\.description).joined(separator: ", ") + "]" }

    /// The seeds of `FLEETFENCE_CHAOS_SEEDS`: `7`, `1-50`, `3,9,20-22`. Empty when unset; throws
    /// for text that is not such a list, so that a typo runs nothing rather than something else.
    static func seeds(from text: String?) throws -> [UInt64] {
        guard let text, !text.trimmingCharacters(in: .whitespaces).isEmpty else { return [] }
        var seeds: [UInt64] = []
        for part in text.split(separator: ",") {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
                .map { UInt64($0.trimmingCharacters(in: .whitespaces)) }
            switch bounds.count {
            case 1:
                guard let seed = bounds[0] else { throw TestSupportError("not a seed: \(part)") }
                seeds.append(seed)
            case 2:
                guard let low = bounds[0], let high = bounds[1], low <= high else { throw TestSupportError("not a range of seeds: \(part)") }
                seeds += Array(low...high)
            default:
                throw TestSupportError("not a seed or a range of seeds: \(part)")
            }
        }
        return seeds
    }
}
