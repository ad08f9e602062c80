/// What one run of samples on one side of a fence's boundary can do to the device's state,
/// judged on the noise-free distances with margins for noise and timing.
struct RunJudgement {
    /// Thresholds shared by every run of a track at one fence.
    struct Thresholds {
        /// Per sample, the evidence margin: max(hysteresis, acc), capped by the fence there.
        var margins: [Double]
        /// Noise band: `noiseSigmas` standard deviations.
        var band: Double
        /// Samples carry an `acc` the service accepts.
        var usable: Bool
        var debounce: Double
        var slack: Double
        /// The device falls silent after the last sample.
        var endsInSilence: Bool
    }

    /// A change to this side is confirmed whatever the noise does.
    var certain: Bool
    /// When the certain confirmation happens at the latest (`nil` when only silence confirms it).
    var confirmedBy: Double?
    /// A change to this side may be confirmed.
    var possible: Bool
    /// First sight would certainly (or possibly) take this side.
    var certainEvidence: Bool
    var possibleEvidence: Bool
    /// Deepest penetration into this side, metres.
    var depth: Double
    /// Seconds between the first and last possible evidence.
    var evidenceSpan: Double
    /// When the first sample that may be evidence for this side comes (noise may put one a little
    /// before the run).
    var firstPossibleEvidence: Double?
    /// The sample after the crossing into this run (the crossing lies between it and the one before).
    var crossingSample: Int
    /// Where the service's estimate of the crossing (an alert's `at`) may fall. The service
    /// interpolates between the last old-side sample before the change it confirms and the
    /// first new-side one; noise can put a sample near the boundary on the old side, so a
    /// device that lingers there (a truck standing on a small fence) can have its `at` anywhere
    /// along the stay, long after the true crossing.
    var earliestCrossing: Double
    var latestCrossing: Double

    init(times: [Double], distances: [Double], lo: Int, hi: Int, inside: Bool, _ t: Thresholds) {
        let sign: Double = inside ? 1 : -1
        let v = { (j: Int) in sign * distances[j] }
        let certainSide = { (j: Int) in v(j) > 0 && v(j) >= t.band }
        let possibleSide = { (j: Int) in t.band > 0 ? v(j) > -t.band : v(j) >= 0 }
        let isCertainEvidence = { (j: Int) in t.usable && v(j) >= t.margins[j] + t.band }
        let isPossibleEvidence = { (j: Int) in t.usable && v(j) >= t.margins[j] - t.band }
        let last = times.count - 1

        // Certain: evidence at both ends of a stretch surely on this side, debounce apart; or
        // evidence on a stretch that runs into the silence at the end.
        var confirmedBy: Double?
        var confirmedByIndex: Int?
        var stretchStart: Double?
        for j in lo...hi {
            guard certainSide(j) else { stretchStart = nil; continue }
            guard isCertainEvidence(j) else { continue }
            if let start = stretchStart {
                if times[j] - start >= t.debounce + t.slack { confirmedBy = times[j]; confirmedByIndex = j; break }
            } else {
                stretchStart = times[j]
            }
        }
        self.confirmedBy = confirmedBy
        certain = confirmedBy != nil || (t.endsInSilence && hi == last && stretchStart != nil)

        // Possible: the run widened by neighbours that noise may put on this side, with evidence
        // nearly a debounce apart, or running into the silence.
        var elo = lo, ehi = hi
        while elo > 0, possibleSide(elo - 1) { elo -= 1 }
        while ehi < last, possibleSide(ehi + 1) { ehi += 1 }
        let evidence = (elo...ehi).filter(isPossibleEvidence)
        evidenceSpan = evidence.first.map { times[evidence.last!] - times[$0] } ?? 0
        firstPossibleEvidence = evidence.first.map { times[$0] }
        possible = certain || (!evidence.isEmpty && (evidenceSpan >= t.debounce - t.slack || (t.endsInSilence && ehi == last)))
        certainEvidence = (lo...hi).contains(where: isCertainEvidence)
        possibleEvidence = !evidence.isEmpty
        depth = (lo...hi).map(v).max() ?? 0

        // The crossing that counts: the last sign change before the run is surely on this side.
        var j = max((lo...hi).first(where: certainSide) ?? lo, 1)
        while j > 1, !(v(j) > 0 && v(j - 1) <= 0) { j -= 1 }
        crossingSample = j

        // The crossing the service reports: after the last sample before the confirmation that
        // noise may put on the old side (a certain change is confirmed by `confirmedBy`; any
        // other may be confirmed as late as the widened run's end, by silence), and no earlier
        // than the first sample noise may put on this side. Twice the band here: what matters
        // is the last of many samples, and one sample two deviations deep still lands on the
        // old side 2 % of the time (13 % at the centre of a circle 2 deviations wide, where the
        // radial error counts), four deviations deep 0.03 % at most.
        earliestCrossing = times[max(elo - 1, 0)]
        var latest = times[crossingSample]
        let limit = (confirmedByIndex ?? ehi) - 1
        if lo <= limit {
            for k in lo...limit where v(k) < 2 * t.band || v(k) <= 0 { latest = max(latest, times[k + 1]) }
        }
        latestCrossing = latest
    }
}
