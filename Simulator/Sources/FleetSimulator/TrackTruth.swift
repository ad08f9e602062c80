import Foundation
import GeofenceEngine

/// Ground truth for one device at one fence, judged by geometry on the noise-free samples.
///
/// Deliberately not the engine's state machine: the path is cut into runs on either side of the
/// boundary, and each run is judged by how deep it goes and how long it stays, with margins for
/// noise and timing. The device's state is tracked as a set of possibilities, so that one
/// ambiguous change makes what depends on it ambiguous too, and nothing more.
public struct TrackTruth: Sendable {
    public var device: String
    /// Sample times, increasing, and the noise-free signed distance at each (positive inside).
    public var times: [Double]
    public var distances: [Double]
    /// The `acc` the samples carry and the noise's standard deviation, metres.
    public var accuracy: Double
    public var noise: Double
    /// The device goes quiet after its last sample, so the service confirms a pending change by
    /// silence (`silent_confirm_s`).
    public var endsInSilence: Bool
    /// Per sample, the evidence margin's cap where it is (a MultiPolygon's member decides it, see
    /// `JudgeFence.measure`); `nil`: the fence's `marginCap` everywhere.
    public var caps: [Double]?

    public init(
        device: String, times: [Double], distances: [Double], accuracy: Double, noise: Double, endsInSilence: Bool = true,
        caps: [Double]? = nil
    ) {
        precondition(times.count == distances.count && (caps?.count ?? times.count) == times.count)
        self.device = device
        self.times = times
        self.distances = distances
        self.accuracy = accuracy
        self.noise = noise
        self.endsInSilence = endsInSilence
        self.caps = caps
    }

    private enum State: Hashable { case unknown, inside, outside }

    private struct Run {
        var inside: Bool
        var lo: Int
        var hi: Int
    }

    /// Expected and ambiguous alerts at `fence`. `crossing(j)` is the true crossing time between
    /// samples j-1 and j (default: linear in distance between them).
    public func alerts(at fence: JudgeFence, rules: GroundTruthRules, crossing: ((Int) -> Double)? = nil) -> [ExpectedAlert] {
        verdict(at: fence, rules: rules, crossing: crossing).alerts
    }

    /// The alerts, and what the rules built on the region state need: every enter the service
    /// may confirm (tour visits, whatever the fence notifies) and where the device is surely or
    /// possibly inside.
    public func verdict(at fence: JudgeFence, rules: GroundTruthRules, crossing: ((Int) -> Double)? = nil) -> TrackVerdict {
        var verdict = TrackVerdict(count: times.count)
        guard !times.isEmpty else { return verdict }
        let settings = rules.settings
        let thresholds = RunJudgement.Thresholds(
            margins: times.indices.map { j in
                fence.evidenceMargin(hysteresis: settings.hysteresisMeters, accuracy: accuracy, cap: caps?[j])
            },
            band: rules.noiseSigmas * max(noise, 0), usable: accuracy <= settings.maxAccuracyMeters,
            debounce: settings.debounceSeconds, slack: rules.timeMargin, endsInSilence: endsInSilence)
        let crossingTime = crossing ?? linearCrossing
        var possible: Set<State> = [.unknown]
        var alerts: [ExpectedAlert] = []

        for (r, run) in sideRuns().enumerated() {
            let judged = RunJudgement(times: times, distances: distances, lo: run.lo, hi: run.hi, inside: run.inside, thresholds)
            // The first run is first sight: it has no crossing and alerts nothing.
            let at = r > 0 ? crossingTime(judged.crossingSample) : nil
            let side: State = run.inside ? .inside : .outside
            let opposite: State = run.inside ? .outside : .inside

            // Advance every possible state through this run; the change happens in some, or all.
            var next: Set<State> = []
            var happens = false, always = true
            for state in possible {
                switch state {
                case .unknown:
                    always = false
                    if judged.certainEvidence {
                        next.insert(side)
                    } else {
                        next.insert(.unknown)
                        if judged.possibleEvidence { next.insert(side) }
                    }
                case side:
                    always = false
                    next.insert(side)
                default:
                    if !judged.certain {
                        always = false
                        next.insert(state)
                    }
                    if judged.possible {
                        happens = true
                        next.insert(side)
                    }
                }
            }

            let event: AlertEvent = run.inside ? .enter : .exit
            // Where the service's `at` for this crossing may fall (see RunJudgement).
            let window = at.map { _ in judged.earliestCrossing...judged.latestCrossing }
            let needed = thresholds.margins[run.lo...run.hi].max()! + thresholds.band
            var change: ExpectedAlert?
            if let at {
                if happens, always {
                    change = ExpectedAlert(
                        device: device, fence: fence.id, event: event, at: at, certainty: .expected,
                        bySilence: judged.confirmedBy == nil, atWindow: window)
                } else if happens {
                    let note = judged.certain ? "after an ambiguous change"
                        : String(format: "new side for %.0f s of %.0f s debounce", judged.evidenceSpan, thresholds.debounce)
                    change = ExpectedAlert(
                        device: device, fence: fence.id, event: event, at: at, certainty: .ambiguous, note: note, atWindow: window)
                } else if judged.depth < needed, possible.contains(opposite) {
                    change = ExpectedAlert(
                        device: device, fence: fence.id, event: event, at: at, certainty: .ambiguous,
                        note: String(format: "graze: %.1f m past the boundary, evidence needs %.1f", judged.depth, needed),
                        atWindow: window)
                }
            }
            if let change {
                if fence.notify.contains(event) { alerts.append(change) }
                if event == .enter { verdict.enters.append(change) }
            }

            // Where the device is, run by run: the states possible before it, joined by this side
            // from its first possible evidence on, and this side alone once a certain change is
            // confirmed (after the confirming sample: the service may judge that sample's other
            // rules before or after the change).
            for j in run.lo...run.hi {
                var states = possible
                if next.contains(side), let first = judged.firstPossibleEvidence, times[j] >= first { states.insert(side) }
                // A graze: the change is ambiguous without any sample to place it.
                if change != nil, !next.contains(side) { states.insert(side) }
                if judged.certain, let confirmed = judged.confirmedBy, times[j] > confirmed { states = [side] }
                verdict.surelyInside[j] = states == [.inside]
                verdict.possiblyInside[j] = states.contains(.inside)
            }

            // Dwell: once per stay, judged on inside samples, measured from the crossing.
            if run.inside, fence.notify.contains(.dwell), let dwell = fence.definition.dwellSeconds, next.contains(.inside) {
                let start = at ?? times[run.lo]
                let stay = times[run.hi] - start
                if happens, always, let confirmedBy = judged.confirmedBy, start + stay >= max(start + dwell, confirmedBy) + thresholds.slack {
                    alerts.append(ExpectedAlert(
                        device: device, fence: fence.id, event: .dwell, at: start, due: start + dwell, certainty: .expected,
                        atWindow: window))
                } else if stay >= dwell - thresholds.slack || possible.contains(.inside) || possible.contains(.unknown) {
                    // Close to dwell_s, or a stay that may have begun before this run.
                    alerts.append(ExpectedAlert(
                        device: device, fence: fence.id, event: .dwell, at: start, due: start + dwell, certainty: .ambiguous,
                        note: String(format: "stay of %.0f s against dwell_s %.0f", stay, dwell), atWindow: window))
                }
            }
            possible = next
        }
        verdict.alerts = alerts
        return verdict
    }

    /// Where the distance changes sign between samples j-1 and j, assuming it changes linearly.
    private func linearCrossing(_ j: Int) -> Double {
        let a = distances[j - 1], b = distances[j]
        let span = abs(a) + abs(b)
        guard span > 0 else { return times[j] }
        return times[j - 1] + (times[j] - times[j - 1]) * abs(a) / span
    }

    /// Runs of samples on one side of the boundary. A run that stays within the noise of the
    /// boundary is kept as it is: it is a graze, judged (ambiguous) like any other.
    private func sideRuns() -> [Run] {
        var runs: [Run] = []
        for j in distances.indices {
            let inside = distances[j] > 0
            if let last = runs.last, last.inside == inside {
                runs[runs.count - 1].hi = j
            } else {
                runs.append(Run(inside: inside, lo: j, hi: j))
            }
        }
        return runs
    }
}

/// What ground truth makes of one device at one fence (see `TrackTruth.verdict`).
public struct TrackVerdict: Sendable {
    /// The alerts the fence notifies.
    public var alerts: [ExpectedAlert] = []
    /// Every enter the service may confirm, expected or ambiguous, whether the fence notifies
    /// enters or not: a tour's stop is visited by a confirmed enter.
    public var enters: [ExpectedAlert] = []
    /// Per sample: every state the service may hold then is inside; some state may be inside.
    public var surelyInside: [Bool]
    public var possiblyInside: [Bool]

    init(count: Int) {
        surelyInside = Array(repeating: false, count: count)
        possiblyInside = Array(repeating: false, count: count)
    }
}
