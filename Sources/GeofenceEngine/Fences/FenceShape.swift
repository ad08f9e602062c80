/// The shape of a fence as its author wrote it (docs/topics-and-payloads.md "Fences"). Coordinates are already out of
/// GeoJSON's `[lon, lat]` order; rings may be closed or not.
public enum FenceShape: Sendable, Hashable, Codable {
    /// A circle: centre and radius in metres.
    case circle(center: Coordinate, radius: Double)
    /// An outer ring and the holes cut out of it (inside a hole is outside the fence).
    case polygon([Coordinate], holes: [[Coordinate]] = [])
    /// Several polygons, each with its holes: one fence.
    case multiPolygon([PolygonRings])
    /// Every point within `bufferMeters` of the line: a road or a rail track.
    case corridor(line: [Coordinate], bufferMeters: Double)
}

/// One polygon of a MultiPolygon: its outer ring and its holes.
public struct PolygonRings: Sendable, Hashable, Codable {
    public var outer: [Coordinate]
    public var holes: [[Coordinate]]

    public init(outer: [Coordinate], holes: [[Coordinate]] = []) {
        self.outer = outer
        self.holes = holes
    }
}
