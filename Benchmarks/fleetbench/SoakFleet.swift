import Foundation
import SeededRandom

/// The soak's fleet: devices reporting in turn, each every `interval` wall seconds with `ts` the
/// wall clock, driving on as `Fleet`'s trucks do (crossing the generated fences), while a share of
/// them is replaced by new device ids: the old ones go silent for good, to be forgotten.
struct SoakFleet {
    struct Device {
        var topic: String
        var lat: Double
        var lon: Double
        var heading: Double
        var speed: Double
        /// `ts` of its last report; 0 before the first.
        var lastTS: Double
    }

    let area: FleetArea
    private(set) var devices: [Device] = []
    /// Device ids handed out so far: `soak-<n>`, never reused.
    private(set) var idsIssued = 0
    private var cursor = 0
    private var random: SeededRandom

    init(count: Int, area: FleetArea, seed: UInt64) {
        self.area = area
        random = SeededRandom(seed: seed)
        devices.reserveCapacity(count)
        for _ in 0..<count { devices.append(newDevice()) }
    }

    private mutating func newDevice() -> Device {
        let point = area.randomPoint(using: &random)
        idsIssued += 1
        return Device(
            topic: "fleet/soak-\(idsIssued)/position", lat: point.lat, lon: point.lon,
            heading: Double.random(in: 0..<360, using: &random), speed: Double.random(in: 6...25, using: &random),
            lastTS: 0)
    }

    /// Replaces `count` devices, chosen at random, by new ones.
    mutating func churn(_ count: Int) {
        for _ in 0..<min(count, devices.count) {
            devices[Int.random(in: 0..<devices.count, using: &random)] = newDevice()
        }
    }

    /// The next device in turn reports at `ts`: moved on from its last report and appended to `stream`.
    mutating func appendReport(ts: Double, to stream: inout PositionStream) {
        var device = devices[cursor]
        let elapsed = device.lastTS > 0 ? max(0, ts - device.lastTS) : 0
        device.heading = (device.heading + Double.random(in: -12...12, using: &random) + 360).truncatingRemainder(dividingBy: 360)
        let radians = device.heading * .pi / 180
        let distance = device.speed * elapsed
        let moved = FleetArea.offset(lat: device.lat, lon: device.lon, north: distance * cos(radians), east: distance * sin(radians))
        if area.contains(lat: moved.lat, lon: moved.lon) {
            (device.lat, device.lon) = moved
        } else {
            // Turn back at the edge of the area.
            device.heading = (device.heading + 180).truncatingRemainder(dividingBy: 360)
        }
        // ts strictly grows per device (rule 4), also when two reports share a clock reading.
        device.lastTS = max(ts, device.lastTS + 0.001)
        devices[cursor] = device
        let fix = PositionFix(
            lat: device.lat, lon: device.lon, ts: device.lastTS, acc: Double.random(in: 3...15, using: &random),
            spd: device.speed, hdg: device.heading)
        stream.append(topic: stream.addTopic(device.topic), fix)
        cursor = (cursor + 1) % devices.count
    }
}
