import GeofenceEngine

/// Fence definitions as schema version 2 stored them: the layout Swift's synthesized `Codable`
/// gave `FenceRecord` and `FenceDefinition` then. Frozen here, so that the migration to version 3
/// keeps reading them whatever becomes of the engine's own conformance.
enum JournalSchemaV2 {
    struct Record: Decodable {
        var definition: Definition
        var generation: UInt32
    }

    struct Definition: Decodable {
        var id: String
        var name: String?
        var description: String?
        var shape: Shape
        var notify: [String]?
        var dwellSeconds: Double?

        /// `nil` when a stored `notify` names an event that does not exist.
        var current: FenceDefinition? {
            var events: Set<AlertEvent>?
            if let notify {
                let parsed = notify.compactMap(AlertEvent.init(rawValue:))
                guard parsed.count == notify.count else { return nil }
                events = Set(parsed)
            }
            let currentShape: FenceShape
            if let circle = shape.circle {
                currentShape = .circle(center: circle.center.current, radius: circle.radius)
            } else if let polygon = shape.polygon {
                currentShape = .polygon(polygon._0.map(\.current))
            } else {
                return nil
            }
            return FenceDefinition(
                id: id, name: name, description: description, shape: currentShape, notify: events, dwellSeconds: dwellSeconds)
        }
    }

    /// An enum with associated values: `{"circle":{"center":…,"radius":…}}` or `{"polygon":{"_0":[…]}}`.
    struct Shape: Decodable {
        struct Circle: Decodable {
            var center: Point
            var radius: Double
        }

        struct Polygon: Decodable {
            var _0: [Point]
        }

        var circle: Circle?
        var polygon: Polygon?
    }

    struct Point: Decodable {
        var lat: Double
        var lon: Double

        var current: Coordinate { Coordinate(lat: lat, lon: lon) }
    }
}
