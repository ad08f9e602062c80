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

    static func circle(_ id: String, radius: Double, notify: Set<AlertEvent>? = nil, dwell: Double? = nil) -> Fence {
        try! Fence(
            definition: FenceDefinition(
                id: id, name: id, shape: .circle(center: Coordinate(lat: 49.293406, lon: 8.641362), radius: radius),
                notify: notify, dwellSeconds: dwell),
            settings: GeofenceSettings())
    }
}
