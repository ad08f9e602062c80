import FleetFenceCodecs

/// One readable line per alert, for `fleetfence demo` and `fleetsim --print-alerts`:
///
///     10:00:30 truck-3 ENTER wdf01 (SAP SE WDF01) crossed 10:00:05
///     10:04:41 truck-3 EXIT  wdf01 (SAP SE WDF01) crossed 10:04:20 after 4m15s inside
///     10:01:52 truck-9 DWELL wdf-depot (Walldorf Depot) since 10:00:51, 61 s inside
///     10:06:20 truck-4 SPEEDING campus-30 since 10:06:00, up to 47 km/h (limit 30)
///     10:09:12 truck-5 STOP_VISITED dock-b, tour deliveries stop_index 1, crossed 10:08:50
///     10:09:12 truck-5 TOUR_COMPLETED dock-c, tour deliveries stop_index 2, crossed 10:08:50, in 12m30s
///
/// Times are simulated, UTC; the first is `confirmed_at` (a tour's event without one: its `at`).
public enum AlertLine {
    public static func format(_ alert: ReceivedAlert) -> String {
        var event = alert.event.rawValue.uppercased()
        while event.count < 5 { event += " " }
        var line = "\(clock(alert.confirmedAt ?? alert.at)) \(alert.device) \(event) \(alert.fence)"
        if let name = alert.name, !name.isEmpty, name != alert.fence { line += " (\(name))" }
        if let tour = alert.tour { line += ", tour \(tour) stop_index \(alert.stopIndex.map { "\($0)" } ?? "?")," }
        switch alert.event {
        case .dwell:
            line += " since \(clock(alert.at))"
            if let dwell = alert.dwellSeconds { line += ", \(Int(dwell.rounded())) s inside" }
        case .enter, .exit:
            line += " crossed \(clock(alert.at))"
            if let duration = alert.durationSeconds { line += " after \(span(duration)) inside" }
        case .speeding:
            line += " since \(clock(alert.at))"
            if let top = alert.maxSpeedKmh { line += ", up to \(Int(top.rounded())) km/h" }
            if let limit = alert.limitKmh { line += " (limit \(Int(limit.rounded())))" }
        case .stopVisited, .stopSkipped:
            line += " crossed \(clock(alert.at))"
        case .tourCompleted:
            line += " crossed \(clock(alert.at))"
            if let duration = alert.durationSeconds { line += ", in \(span(duration))" }
        }
        if let reason = alert.reason { line += " [\(reason)]" }
        return line
    }

    /// `HH:MM:SS` of a time, UTC.
    static func clock(_ seconds: Double) -> String {
        let text = RFC3339.format(seconds)
        return String(text.dropFirst(11).prefix(8))
    }

    /// `45s`, `4m15s`, `2h03m`.
    static func span(_ seconds: Double) -> String {
        let s = Int(max(0, seconds).rounded())
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(String(format2: s % 60))s" }
        return "\(s / 3600)h\(String(format2: s / 60 % 60))m"
    }
}

extension String {
    /// Two digits, zero-padded.
    fileprivate init(format2 value: Int) {
        self = value < 10 ? "0\(value)" : "\(value)"
    }
}
