import Foundation
import SeededRandom

/// Generated fences: circles (radius 50-500 m) and about 10% polygons (5-12 vertices), spread over
/// the fleet's area, written as the service's `fences.file` (a GeoJSON FeatureCollection).
struct FenceSet: Sendable {
    struct Circle: Sendable {
        var id: String
        var lat: Double
        var lon: Double
        var radius: Double
    }

    struct Polygon: Sendable {
        var id: String
        /// `(lon, lat)` vertices, not closed.
        var ring: [(lon: Double, lat: Double)]
    }

    var circles: [Circle] = []
    var polygons: [Polygon] = []

    var count: Int { circles.count + polygons.count }

    /// Far from the fleet: the marker devices that end a stream cross it, nothing else comes near.
    static let marker = Circle(id: "bench-marker", lat: 10, lon: 10, radius: 500)

    static func generate(count: Int, area: FleetArea, seed: UInt64, idPrefix: String = "f") -> FenceSet {
        var random = SeededRandom(seed: seed)
        var set = FenceSet()
        for number in 0..<count {
            let center = area.randomPoint(using: &random)
            let id = "\(idPrefix)\(number)"
            if number % 10 == 9 {
                let vertices = Int.random(in: 5...12, using: &random)
                let size = Double.random(in: 100...600, using: &random)
                let ring = (0..<vertices).map { vertex -> (lon: Double, lat: Double) in
                    let angle = (Double(vertex) + Double.random(in: 0..<0.6, using: &random)) / Double(vertices) * 2 * .pi
                    let reach = size * Double.random(in: 0.7...1.0, using: &random)
                    let point = FleetArea.offset(lat: center.lat, lon: center.lon, north: reach * cos(angle), east: reach * sin(angle))
                    return (point.lon, point.lat)
                }
                set.polygons.append(Polygon(id: id, ring: ring))
            } else {
                set.circles.append(Circle(id: id, lat: center.lat, lon: center.lon, radius: Double.random(in: 50...500, using: &random).rounded()))
            }
        }
        return set
    }

    func geoJSON(including extra: [Circle] = []) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 200)
        bytes.append(contentsOf: "{\"type\": \"FeatureCollection\", \"features\": [\n".utf8)
        var first = true
        func separator() {
            if !first { bytes.append(contentsOf: ",\n".utf8) }
            first = false
        }
        for circle in circles + extra {
            separator()
            bytes.append(contentsOf: "{\"type\": \"Feature\", \"properties\": {\"id\": \"\(circle.id)\", \"name\": \"Bench circle \(circle.id)\", \"radius\": ".utf8)
            FixedDecimal.append(circle.radius, decimals: 0, to: &bytes)
            bytes.append(contentsOf: "}, \"geometry\": {\"type\": \"Point\", \"coordinates\": [".utf8)
            FixedDecimal.append(circle.lon, decimals: 7, to: &bytes)
            bytes.append(contentsOf: ", ".utf8)
            FixedDecimal.append(circle.lat, decimals: 7, to: &bytes)
            bytes.append(contentsOf: "]}}".utf8)
        }
        for polygon in polygons {
            separator()
            bytes.append(contentsOf: "{\"type\": \"Feature\", \"properties\": {\"id\": \"\(polygon.id)\", \"name\": \"Bench polygon \(polygon.id)\"}, \"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[".utf8)
            for (number, vertex) in (polygon.ring + [polygon.ring[0]]).enumerated() {
                if number > 0 { bytes.append(contentsOf: ", ".utf8) }
                bytes.append(UInt8(ascii: "["))
                FixedDecimal.append(vertex.lon, decimals: 7, to: &bytes)
                bytes.append(contentsOf: ", ".utf8)
                FixedDecimal.append(vertex.lat, decimals: 7, to: &bytes)
                bytes.append(UInt8(ascii: "]"))
            }
            bytes.append(contentsOf: "]]}}".utf8)
        }
        bytes.append(contentsOf: "\n]}\n".utf8)
        return bytes
    }

    /// Writes the file the service loads; the marker fence is always included.
    func write(to path: String) throws {
        try Data(geoJSON(including: [Self.marker])).write(to: URL(fileURLWithPath: path))
    }
}
