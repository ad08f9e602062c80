/// One point of a route: WGS84 degrees and, for timed tracks, the GPX time in seconds since the epoch.
public struct RoutePoint: Sendable, Hashable {
    public var lat: Double
    public var lon: Double
    public var time: Double?

    public init(lat: Double, lon: Double, time: Double? = nil) {
        self.lat = lat
        self.lon = lon
        self.time = time
    }
}

/// Which GPX construct a route came from.
public enum RouteKind: String, Sendable, Hashable {
    /// `trk/trkseg/trkpt`: segments are joined in order.
    case track
    /// `rte/rtept`.
    case route
    /// Every `wpt` of a file, in document order.
    case waypoints
}

/// A route a truck can drive.
public struct GPXRoute: Sendable, Hashable {
    public var name: String
    public var points: [RoutePoint]
    public var kind: RouteKind
    /// The file it was read from, for messages.
    public var source: String

    public init(name: String, points: [RoutePoint], kind: RouteKind, source: String = "") {
        self.name = name
        self.points = points
        self.kind = kind
        self.source = source
    }

    /// Replayed with the file's own pacing only when every point has a time; a partly timed
    /// track is driven at constant speed instead, since its missing times cannot be guessed.
    public var isTimed: Bool {
        points.count > 1 && points.allSatisfy { $0.time != nil }
    }
}
