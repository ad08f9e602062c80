import FleetFenceCodecs
import Foundation

/// `--start-time`: when simulated time begins.
public enum StartTime {
    /// `now` (the wall clock, whole seconds), seconds since the epoch, or an RFC 3339 time.
    ///
    /// Why not a fixed epoch by default: the service drops positions not newer than a device's
    /// last one (docs/rules.md "The rules": stale samples are dropped), so a second run against a service that remembers the first must start
    /// later. "Now" does, as long as runs are not closer together than their simulated length
    /// divided by the speedup.
    public static func parse(_ text: String, now: Double = Date().timeIntervalSince1970) -> Double? {
        if text == "now" { return now.rounded(.down) }
        if let seconds = Double(text), seconds.isFinite, seconds >= 0 { return seconds }
        return RFC3339.parse(text)
    }
}
