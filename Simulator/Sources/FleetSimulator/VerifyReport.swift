import FleetFenceCodecs
import Foundation
import GeofenceEngine

/// Median, 95th percentile and maximum of a set of delays, in seconds.
public struct DelayStats: Sendable, Hashable {
    public var count: Int
    public var median: Double
    public var p95: Double
    public var max: Double

    /// Nearest-rank percentiles; `nil` when there is nothing to summarise.
    public init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func rank(_ p: Double) -> Double { sorted[Swift.max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1)] }
        count = sorted.count
        median = rank(0.5)
        p95 = rank(0.95)
        max = sorted.last!
    }
}

/// What `--verify` prints: the service's alerts scored against ground truth.
public struct VerifyReport: Sendable {
    /// Alerts the noise-free paths call for.
    public var expected = 0
    /// Each matched alert with its crossing, in the order of the crossings.
    public var matchedAlerts: [MatchedAlert] = []
    public var missed: [ExpectedAlert] = []
    /// Alerts received that match nothing expected or ambiguous.
    public var falseAlerts: [ReceivedAlert] = []
    /// Crossings too close to a threshold to call, and how many of them the service alerted.
    public var ambiguous = 0
    public var ambiguousAlerted = 0
    /// Alerts not scored: other devices, fences not in the fences file, `fence_removed` exits.
    public var ignored = 0
    /// The same alert received twice (same instance, device and `seq`): counted once.
    public var duplicates = 0
    /// Alerts (duplicates counted once) per `instance` they name; empty when none names one.
    public var alertsByInstance: [String: Int] = [:]
    /// Devices whose alerts came from more than one instance, with those instances: a partition
    /// that two instances follow (docs/several-instances.md "Several instances").
    public var devicesOnSeveralInstances: [String: Set<String>] = [:]
    /// Expected and matched per event.
    public var byEvent: [AlertEvent: (expected: Int, matched: Int)] = [:]
    /// Arrival minus the wall-clock moment the simulation reached `confirmed_at`, seconds: the
    /// service's latency. Alerts only silence confirms are left out (they wait `silent_confirm_s`).
    public var receiveDelays: DelayStats?
    /// Matched alerts confirmed by the device's silence rather than by a position.
    public var confirmedBySilence = 0
    /// Context for the header.
    public var trucks = 0
    public var simulatedSeconds = 0.0
    public var positions = 0
    /// The tracker model the trucks followed (`FleetOptions.model`).
    public var model = ""

    public init() {}

    public var matched: Int { matchedAlerts.count }
    /// `confirmed_at` minus when the event truly happened (`ExpectedAlert.due`), simulated
    /// seconds; alerts without `confirmed_at` are left out.
    public var delays: DelayStats? { DelayStats(matchedAlerts.compactMap(\.delay)) }
    /// How far each matched enter's and exit's `at` (the service's estimate of the crossing) is
    /// from the true crossing, simulated seconds: noise, and what a restart made the service miss
    /// (docs/operations.md "Journal").
    public var crossingErrors: DelayStats? {
        DelayStats(matchedAlerts.filter { [.enter, .exit].contains($0.truth.event) }.map { abs($0.alert.at - $0.truth.at) })
    }
    public var missedCount: Int { missed.count }
    public var falseCount: Int { falseAlerts.count }
    /// No missed and no false alert: what `--strict` demands.
    public var isClean: Bool { missed.isEmpty && falseAlerts.isEmpty }
}

extension VerifyReport: CustomStringConvertible {
    /// Each matched alert with its delay, then the summary: the counts, the missed and false
    /// alerts and the result stay the last lines on the screen however long the list is.
    public var description: String {
        matchedList.isEmpty ? summary : matchedList + "\n" + summary
    }

    /// One line per matched alert, in the order of the crossings.
    public var matchedList: String {
        guard !matchedAlerts.isEmpty else { return "" }
        var lines = ["matched (delay = confirmed_at - when it truly happened: the crossing; for dwell the crossing + dwell_s; for speeding the first sample a debounce into the episode; simulated s):"]
        for match in matchedAlerts {
            let (what, when): (String, Double) = switch match.truth.event {
            case .dwell, .speeding: ("due", match.truth.due)
            default: ("crossed", match.truth.at)
            }
            var line = "  \(Self.label(match.alert)) \(what) \(RFC3339.format(when))"
            if let confirmed = match.alert.confirmedAt { line += " confirmed \(RFC3339.format(confirmed))" }
            if let delay = match.delay { line += String(format: " delay %.1f", delay) }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// `truck-3 enter wdf01`, `truck-3 stop_visited depot (tour deliveries, stop_index 1)`.
    static func label(device: String, event: AlertEvent, fence: String, tour: String?, stop: Int?) -> String {
        var text = "\(device) \(event.rawValue) \(fence)"
        if let tour { text += " (tour \(tour), stop_index \(stop.map(String.init) ?? "?"))" }
        return text
    }

    static func label(_ alert: ReceivedAlert) -> String {
        label(device: alert.device, event: alert.event, fence: alert.fence, tour: alert.tour, stop: alert.stopIndex)
    }

    static func label(_ alert: ExpectedAlert) -> String {
        label(device: alert.device, event: alert.event, fence: alert.fence, tour: alert.tour, stop: alert.stopIndex)
    }

    /// The counts, delays, missed and false alerts, and the result.
    public var summary: String {
        var lines: [String] = []
        lines.append(String(
            format: "verify: %d trucks, %d positions, %.0f s simulated", trucks, positions, simulatedSeconds)
                + (model.isEmpty ? "" : "; trackers: \(model)"))
        let events = AlertEvent.allCases.compactMap { event in
            byEvent[event].map { "\(event.rawValue) \($0.matched)/\($0.expected)" }
        }
        lines.append("  expected  \(pad(expected))" + (events.isEmpty ? "" : "   matched by event: " + events.joined(separator: ", ")))
        lines.append("  matched   \(pad(matched))")
        lines.append("  missed    \(pad(missed.count))" + Self.kinds(missed.map(\.event)))
        lines.append("  false     \(pad(falseAlerts.count))" + Self.kinds(falseAlerts.map(\.event)))
        lines.append("  ambiguous \(pad(ambiguous))   (\(ambiguousAlerted) alerted)")
        if ignored > 0 || duplicates > 0 {
            lines.append("  ignored   \(pad(ignored))   duplicates \(duplicates)")
        }
        if !alertsByInstance.isEmpty {
            let counts = alertsByInstance.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            lines.append("  instances " + counts.joined(separator: ", ") + "; devices alerted by more than one: "
                + "\(devicesOnSeveralInstances.count)")
        }
        if let delays {
            lines.append(String(
                format: "  delay, confirmed_at - true crossing (sim s): median %.1f  p95 %.1f  max %.1f  (n=%d)",
                delays.median, delays.p95, delays.max, delays.count))
        }
        if let crossingErrors {
            lines.append(String(
                format: "  at, |estimate - true crossing| (sim s):     median %.1f  p95 %.1f  max %.1f  (n=%d, enter and exit)",
                crossingErrors.median, crossingErrors.p95, crossingErrors.max, crossingErrors.count))
        }
        if let receiveDelays {
            lines.append(String(
                format: "  delay, arrival - confirmation (wall s):     median %.3f  p95 %.3f  max %.3f  (n=%d)",
                receiveDelays.median, receiveDelays.p95, receiveDelays.max, receiveDelays.count)
                + (confirmedBySilence > 0 ? ", \(confirmedBySilence) confirmed by silence not counted" : ""))
        }
        let shown = 20
        if !missed.isEmpty {
            lines.append("missed:")
            for alert in missed.prefix(shown) {
                lines.append("  \(Self.label(alert)) \(alert.event == .speeding ? "from" : "crossed") \(RFC3339.format(alert.at))"
                    + (alert.bySilence ? " (confirmed only by silence: was --settle long enough?)" : ""))
            }
            if missed.count > shown { lines.append("  ... and \(missed.count - shown) more") }
        }
        if !devicesOnSeveralInstances.isEmpty {
            lines.append("devices alerted by more than one instance (two instances follow one partition?):")
            for (device, instances) in devicesOnSeveralInstances.sorted(by: { $0.key < $1.key }).prefix(shown) {
                lines.append("  \(device): \(instances.sorted().joined(separator: ", "))")
            }
            if devicesOnSeveralInstances.count > shown { lines.append("  ... and \(devicesOnSeveralInstances.count - shown) more") }
        }
        if !falseAlerts.isEmpty {
            lines.append("false:")
            for alert in falseAlerts.prefix(shown) {
                lines.append("  \(Self.label(alert)) at \(RFC3339.format(alert.at))"
                    + (alert.confirmedAt.map { " confirmed \(RFC3339.format($0))" } ?? "") + (alert.instance.map { " from \($0)" } ?? ""))
            }
            if falseAlerts.count > shown { lines.append("  ... and \(falseAlerts.count - shown) more") }
        }
        lines.append(isClean ? "result: clean" : "result: \(missed.count) missed, \(falseAlerts.count) false")
        return lines.joined(separator: "\n")
    }

    /// `   (enter 1, speeding 2)` for a non-empty list, in the order of `AlertEvent`.
    private static func kinds(_ events: [AlertEvent]) -> String {
        guard !events.isEmpty else { return "" }
        let counts = Dictionary(events.map { ($0, 1) }, uniquingKeysWith: +)
        return "   (" + counts.keys.sorted().map { "\($0.rawValue) \(counts[$0]!)" }.joined(separator: ", ") + ")"
    }

    private func pad(_ n: Int) -> String {
        let text = String(n)
        return String(repeating: " ", count: max(0, 6 - text.count)) + text
    }
}
