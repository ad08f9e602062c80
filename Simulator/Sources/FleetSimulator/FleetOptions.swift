import Foundation

/// How a fleet drives its routes. Times are simulated seconds.
public struct FleetOptions: Sendable, Hashable {
    public var trucks = 25
    /// Speed along routes without times.
    public var speedKmh = 50.0
    /// Seconds between two positions of one truck.
    public var interval = 1.0
    /// Standard deviation of the position error on each axis, metres.
    public var noise = 0.0
    public var seed: UInt64 = 1
    /// Drive each route back and forth until `duration` ends (or forever).
    public var loop = false
    /// Half the trucks (chosen by the seed) drive their route backwards.
    public var reverse = false
    /// Trucks start at seeded times spread over this many seconds.
    public var stagger = 120.0
    /// Device ids are `<prefix><k>`, k from 1.
    public var prefix = "truck-"
    /// Simulated time of the earliest start, seconds since the epoch. Now by default: the service
    /// ignores positions not newer than a device's last one, so a rerun against a service that
    /// remembers the previous run must not go back in time.
    public var startTime = Date().timeIntervalSince1970.rounded(.down)
    /// Simulated seconds after `startTime` at which every truck stops; `nil`: when its route ends.
    public var duration: Double?
    /// Every sample at a whole second: each truck starts at one, and a route's last point is
    /// reported at the next whole second after it is reached. For OwnTracks, whose `tst` is whole
    /// seconds; `interval` and `parkedInterval` must then be whole too (see `Simulation`).
    public var wholeSeconds = false

    // Tracker models (docs/simulator.md "Simulator"): what real trackers send, seeded like the rest.

    /// Seconds between two positions while the truck stands still; `nil`: `interval` always.
    public var parkedInterval: Double?
    /// Coverage gaps per truck and simulated hour; the fixes of a gap are kept and sent when it ends.
    public var gapsPerHour = 0.0
    /// Length of a gap, simulated seconds, drawn uniformly.
    public var gapLength: ClosedRange<Double> = 60...600
    /// How a tracker back in coverage sends its backlog.
    public var backlog = BacklogOrder.oldestFirst
    /// Live fixes a tracker sends after a gap before its backlog (live-first and newest-first): a
    /// tracker that uploads what it kept while it goes on reporting sends it behind later fixes.
    public var backlogBehind = 1
    /// Each fix moved from its instant by up to half this share of `interval`, either way, so the
    /// time between two fixes is `interval` ± this share of it: real trackers' reports jitter.
    public var jitter = 0.0
    /// Share of positions displaced 300-1500 m with an ordinary `acc` (multipath).
    public var outliers = 0.0

    public enum BacklogOrder: String, Sendable, Hashable, CaseIterable {
        /// The kept fixes first, then the live one: in event time.
        case oldestFirst = "oldest-first"
        /// The live fix first, then the kept ones, oldest first (docs/rules.md "Late samples").
        case liveFirst = "live-first"
        /// The live fix first, then the kept ones, newest first.
        case newestFirst = "newest-first"
    }

    /// The tracker model in a few words, for the verification report.
    public var model: String {
        var parts = ["fixes every \(Self.format(interval)) s"]
        if jitter > 0 { parts[0] += " ±\(Self.format(jitter * 100))%" }
        if let parkedInterval { parts.append("\(Self.format(parkedInterval)) s parked") }
        if gapsPerHour > 0 {
            parts.append(
                "\(Self.format(gapsPerHour)) gaps/h of \(Self.format(gapLength.lowerBound))-\(Self.format(gapLength.upperBound)) s sent \(backlog.rawValue)"
                    + (backlog != .oldestFirst && backlogBehind > 1 ? " behind \(backlogBehind) live fixes" : ""))
        }
        if outliers > 0 { parts.append("\(Self.format(outliers * 100))% outliers") }
        if noise > 0 { parts.append("noise \(Self.format(noise)) m") }
        return parts.joined(separator: ", ")
    }

    private static func format(_ value: Double) -> String {
        value.rounded() == value ? String(Int(value)) : String(value)
    }

    public init() {}

    /// The `acc` every payload carries: the noise itself, or a good fix's 5 m when there is none.
    public var accuracy: Double { noise > 0 ? noise : 5 }
}
