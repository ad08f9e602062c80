import GeofenceEngine

/// Matches received alerts to ground truth: same device, fence and event (for a tour's event,
/// the same tour and stop too), `at` within a tolerance of where the service may place it
/// (`ExpectedAlert.atWindow`), nearest first, each used once. With `debounce`, an enter, exit or
/// speeding confirmed sooner than that after its `at` breaks the debounce (docs/rules.md "The rules":
/// the device stays on the new side, or over the limit, for the whole debounce) and matches
/// nothing: it counts as false. A `tour_completed` whose `duration_s` is further than the
/// tolerance from where it may fall matches nothing either.
///
/// Alerts that name their instance (docs/several-instances.md "Several instances") are also counted per instance,
/// and a device alerted by more than one is listed: each device belongs to one instance, so two
/// mean two instances follow the same partition. Their alerts are scored as any other: an alert
/// two instances both send is matched once and false once.
public enum VerifyScoring {
    /// `devices`/`fences`/`tours`: what the simulation knows; alerts about anything else are ignored.
    /// `wallTime` maps a simulated time to the wall clock at which the simulation reached it.
    public static func score(
        expected: [ExpectedAlert], received: [ReceivedAlert], devices: Set<String>, fences: Set<String>,
        tours: Set<String> = [], tolerance: Double = 60, debounce: Double? = nil, wallTime: ((Double) -> Double)? = nil
    ) -> VerifyReport {
        var report = VerifyReport()
        struct Key: Hashable {
            var device: String, fence: String, event: AlertEvent, tour: String?, stop: Int?
        }
        var seen = Set<String>()
        var alertsByKey: [Key: [ReceivedAlert]] = [:]
        var instancesByDevice: [String: Set<String>] = [:]
        for alert in received {
            // Redelivered QoS 1 messages carry the same seq: count them once. Another instance's
            // alert with the same seq is not a redelivery: each instance counts its own.
            let identity = (alert.instance.map { $0 + "/" } ?? "") + (alert.seq.map { "\(alert.device)#\($0)" }
                ?? "\(alert.device)|\(alert.fence)|\(alert.event)|\(alert.tour ?? "")|\(alert.stopIndex ?? -1)|\(alert.at)")
            guard seen.insert(identity).inserted else {
                report.duplicates += 1
                continue
            }
            if let instance = alert.instance {
                report.alertsByInstance[instance, default: 0] += 1
                instancesByDevice[alert.device, default: []].insert(instance)
            }
            let known = alert.event.isTourEvent ? alert.tour.map(tours.contains) ?? false : fences.contains(alert.fence)
            guard devices.contains(alert.device), known, alert.reason == nil else {
                report.ignored += 1
                continue
            }
            let key = Key(device: alert.device, fence: alert.fence, event: alert.event, tour: alert.tour, stop: alert.stopIndex)
            alertsByKey[key, default: []].append(alert)
        }
        var expectedByKey: [Key: [ExpectedAlert]] = [:]
        for item in expected {
            let key = Key(device: item.device, fence: item.fence, event: item.event, tour: item.tour, stop: item.stopIndex)
            expectedByKey[key, default: []].append(item)
            if item.certainty == .expected {
                report.expected += 1
                report.byEvent[item.event, default: (0, 0)].expected += 1
            } else {
                report.ambiguous += 1
            }
        }

        var receiveDelays: [Double] = []
        for key in Set(alertsByKey.keys).union(expectedByKey.keys) {
            let alerts = alertsByKey[key] ?? []
            let truths = expectedByKey[key] ?? []
            // Every close pair, nearest first; expected before ambiguous on ties, then the pair
            // closest to the true crossing. The gap is measured to the window the service's
            // estimate of the crossing may fall in, not to the true crossing alone: noise near
            // the boundary can move that estimate by much more than the tolerance.
            var pairs: [(alert: Int, truth: Int, gap: Double, offset: Double)] = []
            for (a, alert) in alerts.enumerated() {
                if let debounce, [.enter, .exit, .speeding].contains(alert.event),
                   (alert.confirmedAt ?? -.infinity) < alert.at + debounce - 0.001 { continue }
                for (t, truth) in truths.enumerated() {
                    if let duration = truth.duration {
                        guard let reported = alert.durationSeconds,
                              reported >= duration.lowerBound - tolerance, reported <= duration.upperBound + tolerance
                        else { continue }
                    }
                    let window = truth.atWindow
                    let outside = max(0, window.lowerBound - alert.at, alert.at - window.upperBound)
                    let gap = min(outside, abs(alert.at - truth.due))
                    if gap <= tolerance { pairs.append((a, t, gap, abs(alert.at - truth.at))) }
                }
            }
            pairs.sort { lhs, rhs in
                if lhs.gap != rhs.gap { return lhs.gap < rhs.gap }
                let lhsExpected = truths[lhs.truth].certainty == .expected
                let rhsExpected = truths[rhs.truth].certainty == .expected
                if lhsExpected != rhsExpected { return lhsExpected }
                return lhs.offset < rhs.offset
            }
            var usedAlerts = Set<Int>(), usedTruths = Set<Int>()
            for pair in pairs where !usedAlerts.contains(pair.alert) && !usedTruths.contains(pair.truth) {
                usedAlerts.insert(pair.alert)
                usedTruths.insert(pair.truth)
                let alert = alerts[pair.alert], truth = truths[pair.truth]
                if truth.certainty == .expected {
                    report.byEvent[key.event, default: (0, 0)].matched += 1
                    report.matchedAlerts.append(MatchedAlert(alert: alert, truth: truth))
                    // Silence confirms after a wall-clock wait that would swamp the service's latency.
                    if truth.bySilence {
                        report.confirmedBySilence += 1
                    } else if let wallTime, alert.received > 0, let confirmed = alert.confirmedAt {
                        receiveDelays.append(alert.received - wallTime(confirmed))
                    }
                } else {
                    report.ambiguousAlerted += 1
                }
            }
            for (t, truth) in truths.enumerated() where !usedTruths.contains(t) && truth.certainty == .expected {
                report.missed.append(truth)
            }
            for (a, alert) in alerts.enumerated() where !usedAlerts.contains(a) {
                report.falseAlerts.append(alert)
            }
        }
        report.devicesOnSeveralInstances = instancesByDevice.filter { $0.value.count > 1 }
        report.missed.sort { ($0.at, $0.device) < ($1.at, $1.device) }
        report.falseAlerts.sort { ($0.at, $0.device) < ($1.at, $1.device) }
        report.matchedAlerts.sort { ($0.truth.at, $0.alert.device) < ($1.truth.at, $1.alert.device) }
        report.receiveDelays = DelayStats(receiveDelays)
        return report
    }
}
