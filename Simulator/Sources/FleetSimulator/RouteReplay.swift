import GeofenceEngine

/// Where a truck is on its route, and how it moves there.
public struct ReplayState: Sendable, Hashable {
    public var coordinate: Coordinate
    /// Metres per second along the route (0 while stopped).
    public var speed: Double
    /// Degrees clockwise from north; while stopped, the heading it arrived with.
    public var heading: Double
}

/// A route as a function of elapsed time: the file's own pacing when every point has a time,
/// else a constant speed along the polyline.
public struct RouteReplay: Sendable {
    public let name: String
    /// Seconds from the first point to the last.
    public let duration: Double
    /// Metres along the polyline.
    public let length: Double
    let points: [Coordinate]
    /// Seconds since the first point, non-decreasing.
    let times: [Double]
    /// Per leg i (points i to i+1): metres per second, and the heading carried over stops.
    let speeds: [Double]
    let headings: [Double]

    /// `speedKmh` paces routes without times; `reversed` drives the route backwards (a timed
    /// route keeps its pauses, mirrored).
    public init(route: GPXRoute, speedKmh: Double = 50, reversed: Bool = false) {
        var points = route.points.map { Coordinate(lat: $0.lat, lon: $0.lon) }
        var legs = zip(points, points.dropFirst()).map { JudgeGeometry.distance($0, $1) }
        var times: [Double]
        if route.isTimed {
            let t0 = route.points[0].time!
            times = route.points.map { $0.time! - t0 }
        } else {
            let speed = max(speedKmh, 0.1) / 3.6
            var t = 0.0
            times = [0]
            for leg in legs {
                t += leg / speed
                times.append(t)
            }
        }
        if reversed {
            let end = times.last ?? 0
            points.reverse()
            legs.reverse()
            times = times.reversed().map { end - $0 }
        }
        self.init(name: route.name, points: points, times: times, legs: legs)
    }

    private init(name: String, points: [Coordinate], times: [Double], legs: [Double]) {
        self.name = name
        self.points = points
        self.times = times
        duration = times.last ?? 0
        length = legs.reduce(0, +)
        speeds = legs.indices.map { i in
            let dt = times[i + 1] - times[i]
            return dt > 0 ? legs[i] / dt : 0
        }
        // A stopped truck keeps the heading it arrived with; one stopped from the start takes
        // the heading it will leave with.
        var headings = legs.indices.map { i in legs[i] > 0 ? Geodesy.bearing(from: points[i], to: points[i + 1]) : Double.nan }
        var last = headings.first(where: { !$0.isNaN }) ?? 0
        for i in headings.indices {
            if headings[i].isNaN { headings[i] = last } else { last = headings[i] }
        }
        self.headings = headings
    }

    /// The state `elapsed` seconds after the start, clamped to the route's ends.
    public func state(at elapsed: Double) -> ReplayState {
        guard points.count > 1, duration > 0 else {
            return ReplayState(coordinate: points.first ?? Coordinate(lat: 0, lon: 0), speed: 0, heading: headings.first ?? 0)
        }
        if elapsed <= 0 { return ReplayState(coordinate: points[0], speed: speeds[0], heading: headings[0]) }
        if elapsed >= duration {
            let last = points.count - 2
            return ReplayState(coordinate: points[last + 1], speed: speeds[last], heading: headings[last])
        }
        // The last leg that starts at or before `elapsed`; zero-length legs in time are skipped,
        // so a jump in a timed track takes effect at its instant.
        var lo = 0, hi = times.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if times[mid] <= elapsed { lo = mid } else { hi = mid }
        }
        let dt = times[lo + 1] - times[lo]
        let f = dt > 0 ? (elapsed - times[lo]) / dt : 1
        return ReplayState(
            coordinate: Geodesy.interpolate(points[lo], points[lo + 1], f), speed: speeds[lo], heading: headings[lo])
    }
}
