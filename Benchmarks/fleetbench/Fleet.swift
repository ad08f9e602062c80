import Foundation
import SeededRandom

/// The trucks of the benchmark: `fleet/truck-<k>/position`, each driving on with its own speed and a
/// wandering heading, one sample per `interval` seconds of event time, `ts` increasing per device.
struct Fleet: Sendable {
    struct Truck: Sendable {
        var lat: Double
        var lon: Double
        var heading: Double
        var speed: Double
    }

    let area: FleetArea
    let topics: [String]
    private(set) var trucks: [Truck]
    /// Event time of the last round.
    private(set) var ts: Double
    let interval: Double = 5
    private var random: SeededRandom

    static let startTime: Double = 1_795_600_000

    init(count: Int, area: FleetArea, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        self.area = area
        self.topics = (0..<count).map { "fleet/truck-\($0)/position" }
        self.trucks = (0..<count).map { _ in
            let point = area.randomPoint(using: &random)
            return Truck(
                lat: point.lat, lon: point.lon, heading: Double.random(in: 0..<360, using: &random),
                speed: Double.random(in: 6...25, using: &random))
        }
        self.ts = Self.startTime
        self.random = random
    }

    /// Moves every truck on by one interval and appends their samples to `stream`.
    mutating func appendRound(to stream: inout PositionStream, topicBase: Int32) {
        ts += interval
        for index in trucks.indices {
            var truck = trucks[index]
            truck.heading = (truck.heading + Double.random(in: -12...12, using: &random) + 360)
                .truncatingRemainder(dividingBy: 360)
            let distance = truck.speed * interval
            let radians = truck.heading * .pi / 180
            var moved = FleetArea.offset(lat: truck.lat, lon: truck.lon, north: distance * cos(radians), east: distance * sin(radians))
            if !area.contains(lat: moved.lat, lon: moved.lon) {
                // Turn back at the edge of the area.
                truck.heading = (truck.heading + 180).truncatingRemainder(dividingBy: 360)
                moved = (truck.lat, truck.lon)
            }
            truck.lat = moved.lat
            truck.lon = moved.lon
            trucks[index] = truck
            let fix = PositionFix(
                lat: truck.lat, lon: truck.lon, ts: ts + Double(index % 1000) / 1000,
                acc: Double.random(in: 3...15, using: &random), spd: truck.speed, hdg: truck.heading)
            stream.append(topic: topicBase + Int32(index), fix)
        }
    }

    /// A stream of at least `messages` samples: whole rounds over all trucks. With a `marker`, its
    /// first two samples come first and its confirming one last, so that its alert says the service
    /// has processed the whole stream.
    mutating func stream(messages: Int, framedBy marker: CrossingProbe? = nil) -> PositionStream {
        var stream = PositionStream(topics: topics, reservingMessages: messages + topics.count + 3)
        let markerTopic = marker.map { stream.addTopic($0.topic) }
        if let marker, let markerTopic {
            stream.append(topic: markerTopic, marker.outside)
            stream.append(topic: markerTopic, marker.entering)
        }
        while stream.count < messages { appendRound(to: &stream, topicBase: 0) }
        if let marker, let markerTopic { stream.append(topic: markerTopic, marker.confirming) }
        return stream
    }
}
