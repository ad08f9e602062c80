/// A device that enters a circle fence with a known confirming sample: first seen well outside
/// (state set silently), then at the centre at `t0` (a pending enter), then at the centre again
/// at `t0 + debounce + 0.5`: that third sample confirms, so its publish time starts the alert's clock.
struct CrossingProbe: Sendable {
    let device: String
    let topic: String
    let outside: PositionFix
    let entering: PositionFix
    let confirming: PositionFix

    init(device: String, fence: FenceSet.Circle, startTime: Double, debounce: Double) {
        self.device = device
        self.topic = "fleet/\(device)/position"
        let away = FleetArea.offset(lat: fence.lat, lon: fence.lon, north: fence.radius + 250, east: 0)
        outside = PositionFix(lat: away.lat, lon: away.lon, ts: startTime, acc: 5)
        entering = PositionFix(lat: fence.lat, lon: fence.lon, ts: startTime + 1, acc: 5)
        confirming = PositionFix(lat: fence.lat, lon: fence.lon, ts: startTime + 1 + debounce + 0.5, acc: 5)
    }

    /// The end marker of a stream: crosses the far-away marker fence.
    static func endMarker(_ name: String, debounce: Double) -> CrossingProbe {
        CrossingProbe(device: name, fence: FenceSet.marker, startTime: Fleet.startTime, debounce: debounce)
    }
}
