import Foundation
@testable import FleetSimulator
import GeofenceEngine

/// Paths to the package's own files, and small builders the tests share.
enum Fixtures {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let routesDirectory = packageRoot.appendingPathComponent("Simulator/Routes")
    static let fencesFile = packageRoot.appendingPathComponent("Config/fences.geojson")

    static func gpx(_ body: String) -> Data {
        Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
        \(body)
        </gpx>
        """.utf8)
    }

    /// A point `north`/`east` metres from WDF01's centre.
    static func point(north: Double, east: Double) -> Coordinate {
        Geodesy.offset(Coordinate(lat: 49.293406, lon: 8.641362), north: north, east: east)
    }

    /// A route along west-to-east points (metres from the centre), without times.
    static func straightRoute(_ easts: [Double], north: Double = 0, name: String = "line") -> GPXRoute {
        GPXRoute(name: name, points: easts.map {
            let c = point(north: north, east: $0)
            return RoutePoint(lat: c.lat, lon: c.lon)
        }, kind: .route)
    }

    static func circle(_ id: String, radius: Double, notify: Set<AlertEvent>? = nil, dwell: Double? = nil) -> JudgeFence {
        try! JudgeFence(
            definition: FenceDefinition(
                id: id, name: id, shape: .circle(center: Coordinate(lat: 49.293406, lon: 8.641362), radius: radius),
                notify: notify, dwellSeconds: dwell),
            settings: GeofenceSettings())
    }

    static let bundledRoutes = try! RouteLoader.load(paths: [routesDirectory.path])
    static let bundledFences = try! FenceFile.load(contentsOf: fencesFile).map {
        try! JudgeFence(definition: $0, settings: GeofenceSettings())
    }

    /// A path given as signed distances at corner times, sampled every second from t = 1000,
    /// linear between.
    static func track(
        _ corners: [(t: Double, d: Double)], accuracy: Double = 5, noise: Double = 0, silent: Bool = true
    ) -> TrackTruth {
        var times: [Double] = [], distances: [Double] = []
        for t in stride(from: corners.first!.t, through: corners.last!.t, by: 1) {
            let k = corners.lastIndex { $0.t <= t }!
            let a = corners[k], b = corners[min(k + 1, corners.count - 1)]
            let f = b.t > a.t ? (t - a.t) / (b.t - a.t) : 0
            times.append(1000 + t)
            distances.append(a.d + (b.d - a.d) * f)
        }
        return TrackTruth(device: "t", times: times, distances: distances, accuracy: accuracy, noise: noise, endsInSilence: silent)
    }

    static let bundledTours = try! TourFile.load(contentsOf: packageRoot.appendingPathComponent("Config/tours.json"))

    /// The engine in-process, fed a plan's published (noisy) positions in time order, scored
    /// against ground truth.
    static func engineReport(
        _ plan: FleetPlan, fences: [JudgeFence] = bundledFences, tours: [TourDefinition] = bundledTours
    ) -> VerifyReport {
        var engine = GeofenceEngine()
        for fence in fences { _ = try! engine.setFence(fence.definition) }
        for tour in tours { _ = try! engine.setTour(tour) }
        var schedule = FleetSchedule(plan: plan)
        var transitions: [Transition] = []
        var last = 0.0
        while let sample = schedule.next(through: .infinity) {
            let position = PositionSample(
                lat: sample.observed.lat, lon: sample.observed.lon, timestamp: sample.time, accuracy: sample.accuracy,
                speed: TruckPayload.published(speed: sample.truth.speed))
            engine.process(device: plan.trucks[sample.truck].device, sample: position, arrival: sample.time, into: &transitions)
            last = sample.time
        }
        engine.tick(now: last + 1000, into: &transitions)
        let received = transitions.map {
            ReceivedAlert(
                event: $0.event, device: $0.device, fence: $0.fenceID, at: $0.at, confirmedAt: $0.confirmedAt, seq: $0.seq,
                durationSeconds: $0.durationSeconds, tour: $0.tourID, stopIndex: $0.stopIndex)
        }
        let truth = GroundTruth.expectedAlerts(plan: plan, fences: fences, tours: tours, rules: GroundTruthRules())
        return VerifyScoring.score(
            expected: truth, received: received, devices: Set(plan.trucks.map(\.device)), fences: Set(fences.map(\.id)),
            tours: Set(tours.map(\.id)))
    }
}
