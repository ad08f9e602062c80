/// One device's progress through one tour (docs/rules.md "Tours"), as the device's state keeps it and
/// its record journals it.
public struct TourProgress: Sendable, Hashable, Codable {
    public struct Visit: Sendable, Hashable, Codable {
        public var stop: String
        /// The visit's enter: its estimated crossing time.
        public var at: Double

        public init(stop: String, at: Double) {
            self.stop = stop
            self.at = at
        }
    }

    public var tour: String
    /// From 1; a new round starts when the tour is entered again after it was completed.
    public var round: Int
    /// This round's visits, in the order they happened.
    public var visited: [Visit]
    /// This round's stops passed over (ordered tours), in tour order.
    public var skipped: [String]
    /// The round's last stop has been visited (`tour_completed` was alerted).
    public var completed: Bool

    public init(tour: String, round: Int, visited: [Visit], skipped: [String], completed: Bool) {
        self.tour = tour
        self.round = round
        self.visited = visited
        self.skipped = skipped
        self.completed = completed
    }
}

/// A device's progress as it is published on `<prefix>/progress/<device>/<tour>`.
public struct TourProgressReport: Sendable, Hashable {
    public var device: String
    public var tour: String
    public var round: Int
    /// The stop the device is expected at next: for an ordered tour the one after the last visit,
    /// for an unordered one the first in the tour's order not yet visited this round; after the
    /// round is complete, the first stop, whose visit starts the next round.
    public var nextStop: String?
    public var visited: [TourProgress.Visit]
    public var skipped: [String]

    public init(device: String, tour: String, round: Int, nextStop: String?, visited: [TourProgress.Visit], skipped: [String]) {
        self.device = device
        self.tour = tour
        self.round = round
        self.nextStop = nextStop
        self.visited = visited
        self.skipped = skipped
    }
}
