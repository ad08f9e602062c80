/// A validated fence as the engine holds it: radius clamped, geometry ready for queries.
public struct Fence: Sendable {
    public let definition: FenceDefinition
    /// The radius alerts and the registry show (circles only).
    public let effectiveRadius: Double?
    /// The radius as defined, when the clamp changed it.
    public let clampedFrom: Double?
    let geometry: Geometry
    /// The largest evidence margin this fence allows: half its radius or inscribed size.
    public let marginCap: Double
    public let notify: Set<AlertEvent>

    enum Geometry: Sendable {
        case circle(CircleGeometry)
        case polygon(PolygonGeometry)

        func signedDistance(to point: ProbePoint) -> Double {
            switch self {
            case let .circle(circle):
                circle.signedDistance(latRadians: point.latRadians, cosLat: point.cosLat, lon: point.lon)
            case let .polygon(polygon):
                polygon.signedDistance(to: Coordinate(lat: point.lat, lon: point.lon))
            }
        }
    }

    public var id: String { definition.id }

    /// Whether building this fence with `settings` gives it as it is (only a circle's clamped
    /// radius depends on them).
    func isBuilt(with settings: GeofenceSettings) -> Bool {
        guard case let .circle(_, radius) = definition.shape else { return true }
        return RadiusClamp.clamp(radius, min: settings.minRadiusMeters, max: settings.maxRadiusMeters) == effectiveRadius
    }
    public var name: String? { definition.name }
    public var isClamped: Bool { clampedFrom != nil }

    /// Validates `definition` and clamps a circle's radius into the settings' range.
    public init(definition: FenceDefinition, settings: GeofenceSettings) throws(FenceError) {
        try FenceValidation.validate(definition)
        self.definition = definition
        self.notify = definition.effectiveNotify
        switch definition.shape {
        case let .circle(center, radius):
            let clamped = RadiusClamp.clamp(radius, min: settings.minRadiusMeters, max: settings.maxRadiusMeters)
            effectiveRadius = clamped
            clampedFrom = clamped == radius ? nil : radius
            geometry = .circle(CircleGeometry(center: center, radius: clamped))
            marginCap = clamped / 2
        case let .polygon(points, _):
            effectiveRadius = nil
            clampedFrom = nil
            let polygon = PolygonGeometry(vertices: FenceValidation.openRing(points))
            geometry = .polygon(polygon)
            marginCap = polygon.halfInscribedSize
        case .multiPolygon, .corridor:
            preconditionFailure("MultiPolygons and corridors are measured from the next commit on")
        }
    }

    /// Distance from `point` to the boundary in metres: positive inside, negative outside.
    @inlinable
    public func signedDistance(to point: Coordinate) -> Double {
        signedDistance(lat: point.lat, lon: point.lon)
    }

    @usableFromInline
    func signedDistance(lat: Double, lon: Double) -> Double {
        geometry.signedDistance(to: ProbePoint(lat: lat, lon: lon))
    }

    /// Where a point can be inside or within the evidence band: the index's key for this fence.
    public var reach: BoundingBox {
        switch geometry {
        case let .circle(circle): circle.boundingBox(grownBy: marginCap)
        case let .polygon(polygon): polygon.boundingBox(grownBy: marginCap)
        }
    }
}
