import Foundation
import GeofenceEngine

/// The alerts a fleet plan should produce, from each truck's noise-free path sampled at the
/// instants it publishes.
public enum GroundTruth {
    /// `through`: the simulated time up to which positions were published (a run stopped early);
    /// `nil` for the whole plan. Trucks fall silent after their last position.
    public static func expectedAlerts(
        plan: FleetPlan, fences: [JudgeFence], rules: GroundTruthRules, through: Double? = nil
    ) -> [ExpectedAlert] {
        let band = rules.noiseSigmas * plan.options.noise
        // Per route, the fences its path can come near: most trucks pass few of the fences.
        let nearby: [[JudgeFence]] = (0..<plan.routeCount).map { route in
            let box = plan.replay(route: route).boundingBox(grownBy: band + 100)
            return fences.filter { overlaps($0.reach, box) }
        }
        var alerts: [ExpectedAlert] = []
        for truck in plan.trucks where !nearby[truck.route].isEmpty {
            var times: [Double] = []
            var positions: [Coordinate] = []
            var n = 0
            while let time = plan.sampleTime(truck, n), time <= through ?? .infinity {
                times.append(time)
                positions.append(plan.state(of: truck, at: time).coordinate)
                n += 1
            }
            guard !times.isEmpty else { continue }
            for fence in nearby[truck.route] {
                let track = TrackTruth(
                    device: truck.device, times: times, distances: positions.map(fence.signedDistance(to:)),
                    accuracy: plan.options.accuracy, noise: plan.options.noise)
                alerts += track.alerts(at: fence, rules: rules) { j in
                    // The crossing on the continuous path, by bisection between the two samples.
                    var lo = times[j - 1], hi = times[j]
                    let inside = fence.signedDistance(to: positions[j]) > 0
                    for _ in 0..<30 {
                        let mid = (lo + hi) / 2
                        if (fence.signedDistance(to: plan.state(of: truck, at: mid).coordinate) > 0) == inside {
                            hi = mid
                        } else {
                            lo = mid
                        }
                    }
                    return (lo + hi) / 2
                }
            }
        }
        return alerts.sorted { ($0.due, $0.device, $0.fence) < ($1.due, $1.device, $1.fence) }
    }

    private static func overlaps(_ a: Box, _ b: Box) -> Bool {
        guard a.minLat <= b.maxLat, b.minLat <= a.maxLat else { return false }
        // Either box may run past ±180: try the route one turn either way too.
        return [-360.0, 0, 360].contains { shift in a.minLon <= b.maxLon + shift && b.minLon + shift <= a.maxLon }
    }
}

/// A latitude/longitude box around a route.
struct Box {
    var minLat, maxLat, minLon, maxLon: Double
}

extension RouteReplay {
    /// The box around every point, grown by `margin` metres.
    func boundingBox(grownBy margin: Double) -> Box {
        let lats = points.map(\.lat), lons = points.map(\.lon)
        let dLat = margin / Geodesy.metersPerDegreeLat
        let midLat = ((lats.min() ?? 0) + (lats.max() ?? 0)) / 2
        let dLon = dLat / max(cos(midLat * .pi / 180), 1e-6)
        return Box(
            minLat: (lats.min() ?? 0) - dLat, maxLat: (lats.max() ?? 0) + dLat,
            minLon: (lons.min() ?? 0) - dLon, maxLon: (lons.max() ?? 0) + dLon)
    }
}
