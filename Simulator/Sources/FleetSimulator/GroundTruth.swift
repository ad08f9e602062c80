import FleetFenceCodecs
import Foundation
import GeofenceEngine

/// The alerts a fleet plan should produce, from each truck's noise-free path sampled at the
/// instants it publishes.
public enum GroundTruth {
    /// `through`: the simulated time up to which positions were published (a run stopped early);
    /// `nil` for the whole plan. Trucks fall silent after their last position. `tours`: the tours
    /// the service holds, played out on the enters at their stops. `format`: how the positions
    /// travel, which decides the speed the service reads (`PositionFormat.publishedSpeed`).
    public static func expectedAlerts(
        plan: FleetPlan, fences: [JudgeFence], tours: [TourDefinition] = [], rules: GroundTruthRules, through: Double? = nil,
        format: PositionFormat = .native
    ) -> [ExpectedAlert] {
        let band = rules.noiseSigmas * plan.options.noise
        // Per route, the fences its path can come near: most trucks pass few of the fences.
        let nearby: [[JudgeFence]] = (0..<plan.routeCount).map { route in
            let box = plan.replay(route: route).boundingBox(grownBy: band + 100)
            return fences.filter { overlaps($0.reach, box) }
        }
        var alerts: [ExpectedAlert] = []
        for truck in plan.trucks {
            // A fence that does not apply to the device gives it no state, no alert, no visit.
            let mine = nearby[truck.route].filter { $0.applies(to: truck.device) }
            guard !mine.isEmpty else { continue }
            var times: [Double] = []
            var states: [ReplayState] = []
            for time in plan.sampleTimes(truck) {
                guard time <= through ?? .infinity else { break }
                times.append(time)
                states.append(plan.state(of: truck, at: time))
            }
            guard !times.isEmpty else { continue }
            var enters: [ExpectedAlert] = []
            for fence in mine {
                let measured = states.map { fence.measure($0.coordinate) }
                let track = TrackTruth(
                    device: truck.device, times: times, distances: measured.map(\.distance),
                    accuracy: plan.options.accuracy, noise: plan.options.noise, caps: measured.map(\.cap))
                let verdict = track.verdict(at: fence, rules: rules) { j in
                    // The crossing on the continuous path, by bisection between the two samples.
                    var lo = times[j - 1], hi = times[j]
                    let inside = measured[j].distance > 0
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
                alerts += verdict.alerts
                enters += verdict.enters
                // A format that carries no speed the service reads is never alerted speeding.
                if let limit = fence.speedLimitKmh, format.publishedSpeed(0) != nil {
                    alerts += SpeedingTruth(
                        device: truck.device, fence: fence.id, limitKmh: limit, times: times,
                        speeds: states.map { format.publishedSpeed($0.speed) ?? 0 },
                        surelyInside: verdict.surelyInside, possiblyInside: verdict.possiblyInside,
                        debounce: rules.settings.debounceSeconds, slack: rules.timeMargin
                    ).alerts()
                }
            }
            for tour in tours where JudgeDevicePattern.matches(tour.devices, truck.device) {
                alerts += TourTruth(tour: tour, device: truck.device, enters: enters).alerts()
            }
        }
        return alerts.sorted {
            ($0.due, $0.device, $0.fence, $0.event, $0.stopIndex ?? -1) < ($1.due, $1.device, $1.fence, $1.event, $1.stopIndex ?? -1)
        }
    }

    /// A fence with `expires_at` is removed by the wall clock (docs/topics-and-payloads.md "Fences"), which ground
    /// truth does not simulate: what it expects of the fence (a tour's events at it too) from a
    /// wall-clock minute before that moment on (confirmation, silence and clocks take time) may or
    /// may not happen.
    /// `wallTime` maps a simulated time to the wall clock at which the simulation reaches it.
    public static func allowingForExpiry(
        _ alerts: [ExpectedAlert], fences: [JudgeFence], wallTime: (Double) -> Double
    ) -> [ExpectedAlert] {
        let expiries = Dictionary(fences.compactMap { fence in fence.definition.expiresAt.map { (fence.id, $0) } }, uniquingKeysWith: min)
        guard !expiries.isEmpty else { return alerts }
        return alerts.map { alert in
            guard let expiry = expiries[alert.fence], wallTime(alert.due) >= expiry - 60 else { return alert }
            var uncertain = alert
            uncertain.certainty = .ambiguous
            uncertain.note = "fence \(alert.fence) expires at \(RFC3339.format(expiry))"
            return uncertain
        }
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
