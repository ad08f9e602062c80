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

    public init() {}

    /// The `acc` every payload carries: the noise itself, or a good fix's 5 m when there is none.
    public var accuracy: Double { noise > 0 ? noise : 5 }
}
