import Foundation

/// What a soak samples at the end of each minute (docs/performance.md "Soak").
struct SoakMinute: Sendable {
    var minute = 0
    /// Positions the service counted per second over the minute (its stats lines).
    var positionsPerSecond = 0.0
    /// Positions the load handed to its client per second.
    var publishedPerSecond = 0.0
    var alertsPerSecond = 0.0
    /// Devices the service holds (the stats line's `devices=`): the churn minus what it forgot.
    var devices = 0
    var serviceRSS: Int?
    var brokerRSS: Int?
    /// The journal's database and write-ahead log together.
    var journalBytes = 0
    /// Publish of a probe's confirming sample to its alert's arrival, over the probes of the minute.
    var delayP50 = 0.0
    var delayP99 = 0.0
    var probes = 0
    var probeAlerts = 0
    /// Messages the broker holds (`$SYS`): the stalled subscriber's queue, mostly.
    var brokerMessages: Double?
    /// Times the service ended the slow `/api/stream` reader during the minute.
    var streamDrops = 0

    static let header =
        "minute  positions/s  published/s  alerts/s   devices  rss MB  journal MB  delay p50 ms  p99 ms  probes  broker MB  broker msgs  stream drops"

    var line: String {
        [
            (String(minute), 6), (String(format: "%.0f", positionsPerSecond), 11), (String(format: "%.0f", publishedPerSecond), 11),
            (String(format: "%.0f", alertsPerSecond), 8), (String(devices), 8), (Self.megabytes(serviceRSS), 6),
            (String(format: "%.1f", Double(journalBytes) / 1e6), 10), (String(format: "%.2f", delayP50), 12),
            (String(format: "%.1f", delayP99), 6), ("\(probeAlerts)/\(probes)", 6), (Self.megabytes(brokerRSS), 9),
            (brokerMessages.map { String(format: "%.0f", $0) } ?? "-", 11), (String(streamDrops), 12),
        ].map { Self.padLeft($0.0, $0.1) }.joined(separator: "  ")
    }

    static func padLeft(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    static func padRight(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private static func megabytes(_ bytes: Int?) -> String {
        bytes.map { String(format: "%.1f", Double($0) / 1e6) } ?? "-"
    }
}

/// The end of a soak: each figure's first and last value, range, and its trend per hour (least
/// squares over the minutes after the warm-up). Figures only; what they mean is for a reader to say.
struct SoakSummary {
    let minutes: [SoakMinute]
    /// Minutes left out of the trends: until replaced devices are first forgotten, the device count
    /// (and memory with it) is still climbing to its steady state.
    let warmUpMinutes: Int

    private var figures: [(name: String, unit: String, value: (SoakMinute) -> Double?)] {
        [
            ("positions/s", "/s", { $0.positionsPerSecond }),
            ("alerts/s", "/s", { $0.alertsPerSecond }),
            ("devices", "", { Double($0.devices) }),
            ("service RSS", "MB", { $0.serviceRSS.map { Double($0) / 1e6 } }),
            ("journal", "MB", { Double($0.journalBytes) / 1e6 }),
            ("alert delay p50", "ms", { $0.probeAlerts > 0 ? $0.delayP50 : nil }),
            ("alert delay p99", "ms", { $0.probeAlerts > 0 ? $0.delayP99 : nil }),
            ("broker RSS", "MB", { $0.brokerRSS.map { Double($0) / 1e6 } }),
            ("broker messages", "", { $0.brokerMessages }),
        ]
    }

    var trendMinutes: [SoakMinute] {
        minutes.count - warmUpMinutes >= 3 ? Array(minutes.dropFirst(warmUpMinutes)) : minutes
    }

    var lines: [String] {
        let trend = trendMinutes
        var lines = [
            "summary over \(minutes.count) minutes; trends per hour by least squares over minutes \(trend.first?.minute ?? 0)-\(trend.last?.minute ?? 0):",
            "  figure             first        last         min          max          trend per hour",
        ]
        for figure in figures {
            let all = minutes.compactMap { minute in figure.value(minute).map { (Double(minute.minute), $0) } }
            guard let first = all.first?.1, let last = all.last?.1 else { continue }
            let values = all.map(\.1)
            let slope = Self.slope(trend.compactMap { minute in figure.value(minute).map { (Double(minute.minute), $0) } })
            let columns = [
                (figure.name, 18), (Self.format(first, figure.unit), 12), (Self.format(last, figure.unit), 12),
                (Self.format(values.min() ?? 0, figure.unit), 12), (Self.format(values.max() ?? 0, figure.unit), 12),
            ]
            lines.append(
                "  " + columns.map { SoakMinute.padRight($0.0, $0.1) }.joined(separator: " ") + " "
                    + (slope.map { ($0 >= 0 ? "+" : "") + Self.format($0 * 60, figure.unit) } ?? "-"))
        }
        let probes = minutes.reduce(0) { $0 + $1.probes }, alerted = minutes.reduce(0) { $0 + $1.probeAlerts }
        lines.append("  probe alerts received: \(alerted) of \(probes); stream reader dropped by the service \(minutes.reduce(0) { $0 + $1.streamDrops }) times")
        return lines
    }

    /// `key=value` pairs of the trends, for scripts.
    var resultLine: String {
        let trend = trendMinutes
        let fields = figures.map { figure -> String in
            let slope = Self.slope(trend.compactMap { minute in figure.value(minute).map { (Double(minute.minute), $0) } })
            let key = figure.name.replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "/", with: "_per_")
            return "\(key)_per_hour=" + (slope.map { String(format: "%.3f", $0 * 60) } ?? "nan")
        }
        return "SOAK minutes=\(minutes.count) " + fields.joined(separator: " ")
    }

    /// Least-squares slope of y over x; nil for fewer than two points.
    static func slope(_ points: [(Double, Double)]) -> Double? {
        guard points.count >= 2 else { return nil }
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.0 } / n, meanY = points.reduce(0) { $0 + $1.1 } / n
        let sxx = points.reduce(0) { $0 + ($1.0 - meanX) * ($1.0 - meanX) }
        guard sxx > 0 else { return nil }
        return points.reduce(0) { $0 + ($1.0 - meanX) * ($1.1 - meanY) } / sxx
    }

    private static func format(_ value: Double, _ unit: String) -> String {
        let magnitude = abs(value)
        let number = magnitude >= 100 ? String(format: "%.0f", value) : magnitude >= 1 ? String(format: "%.2f", value) : String(format: "%.3f", value)
        return unit.isEmpty ? number : "\(number) \(unit)"
    }
}
