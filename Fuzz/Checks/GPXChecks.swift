import FleetSimulator
import Foundation

/// GPX files (docs/simulator.md "Simulator"): a file that reads gives routes of valid points, with time never going
/// backwards along a timed route; anything else is a `GPXError` naming the file.
enum GPXChecks {
    static func check(_ bytes: UnsafeRawBufferPointer) throws(InvariantViolation) {
        let routes: [GPXRoute]
        do throws(GPXError) {
            routes = try GPXParser.parse(data: Data(bytes), source: "fuzz.gpx")
        } catch {
            try require(error.file == "fuzz.gpx" && error.line >= 0 && !error.message.isEmpty, "error \(error)")
            return
        }
        try require(!routes.isEmpty, "no route and no error")
        for route in routes {
            try require(!route.points.isEmpty && !route.name.isEmpty, "route \(route.name.debugDescription) of \(route.points.count) points")
            for point in route.points {
                try require(point.lat.isFinite && abs(point.lat) <= 90 && point.lon.isFinite && abs(point.lon) <= 180,
                            "route \(route.name): point \(point)")
            }
            let times = route.points.compactMap(\.time)
            if times.count == route.points.count {
                try require(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "route \(route.name): time goes backwards")
            }
        }
    }
}
