/// A validated fence as the engine holds it: radius or buffer clamped, geometry ready for queries.
/// Its parts live in one shared object, so that the sample path copies a fence with one reference.
public struct Fence: Sendable {
    private final class Storage: Sendable {
        let definition: FenceDefinition
        let effectiveRadius: Double?
        let effectiveBuffer: Double?
        let clampedFrom: Double?
        let geometry: Geometry
        let marginCap: Double
        let reachMargin: Double
        let notify: Set<AlertEvent>

        init(
            definition: FenceDefinition, effectiveRadius: Double?, effectiveBuffer: Double?, clampedFrom: Double?,
            geometry: Geometry, marginCap: Double, reachMargin: Double
        ) {
            self.definition = definition
            self.effectiveRadius = effectiveRadius
            self.effectiveBuffer = effectiveBuffer
            self.clampedFrom = clampedFrom
            self.geometry = geometry
            self.marginCap = marginCap
            self.reachMargin = reachMargin
            notify = definition.effectiveNotify
        }
    }

    private let storage: Storage

    public var definition: FenceDefinition { storage.definition }
    /// The radius alerts and the registry show (circles only).
    public var effectiveRadius: Double? { storage.effectiveRadius }
    /// A corridor's half-width after the clamp (corridors only).
    public var effectiveBuffer: Double? { storage.effectiveBuffer }
    /// The radius or buffer as defined, when the clamp changed it.
    public var clampedFrom: Double? { storage.clampedFrom }
    var geometry: Geometry { storage.geometry }
    /// The largest evidence margin this fence allows: half its radius, buffer or inscribed size;
    /// for a MultiPolygon, its largest member's (each member caps its own, `marginCap(near:)`).
    public var marginCap: Double { storage.marginCap }
    /// The largest margin a sample can have here: the cap, or less when the settings allow no
    /// sample that much (`max(hysteresis_m, max_accuracy_m)`). Beyond it outside the fence every
    /// sample is outside evidence, so the index need not offer the fence there.
    public var reachMargin: Double { storage.reachMargin }
    public var notify: Set<AlertEvent> { storage.notify }

    enum Geometry: Sendable {
        case circle(CircleGeometry)
        case polygon(PolygonGeometry)
        case multiPolygon(MultiPolygonGeometry)
        case corridor(CorridorGeometry)

        func signedDistance(to point: ProbePoint) -> Double {
            switch self {
            case let .circle(circle):
                circle.signedDistance(latRadians: point.latRadians, cosLat: point.cosLat, lon: point.lon)
            case let .polygon(polygon):
                polygon.signedDistance(to: Coordinate(lat: point.lat, lon: point.lon))
            case let .multiPolygon(multi):
                multi.signedDistance(to: Coordinate(lat: point.lat, lon: point.lon))
            case let .corridor(corridor):
                corridor.signedDistance(to: point)
            }
        }

        /// The signed distance and the evidence margin's cap there: `cap` for every shape but a
        /// MultiPolygon, whose deciding member caps it.
        func measure(_ point: ProbePoint, cap: Double) -> (distance: Double, cap: Double) {
            if case let .multiPolygon(multi) = self {
                let nearest = multi.nearest(to: Coordinate(lat: point.lat, lon: point.lon))
                return (nearest.distance, nearest.marginCap)
            }
            return (signedDistance(to: point), cap)
        }
    }

    public var id: String { definition.id }
    public var name: String? { definition.name }
    public var isClamped: Bool { clampedFrom != nil }

    /// Whether building this fence with `settings` gives it as it is (a circle's radius, a
    /// corridor's buffer and the reach margin depend on them).
    func isBuilt(with settings: GeofenceSettings) -> Bool {
        guard reachMargin == Self.reachMargin(cap: marginCap, settings) else { return false }
        return switch definition.shape {
        case let .circle(_, radius):
            RadiusClamp.clamp(radius, min: settings.minRadiusMeters, max: settings.maxRadiusMeters) == effectiveRadius
        case let .corridor(_, buffer):
            RadiusClamp.clamp(buffer, min: settings.minRadiusMeters, max: settings.maxRadiusMeters) == effectiveBuffer
        case .polygon, .multiPolygon:
            true
        }
    }

    /// Validates `definition` and clamps a circle's radius or a corridor's buffer into the
    /// settings' range.
    public init(definition: FenceDefinition, settings: GeofenceSettings) throws(FenceError) {
        storage = try Self.build(definition, settings)
    }

    private static func build(_ definition: FenceDefinition, _ settings: GeofenceSettings) throws(FenceError) -> Storage {
        try FenceValidation.validate(definition)
        var radius: Double?, buffer: Double?, clampedFrom: Double?
        let geometry: Geometry
        let marginCap: Double
        switch definition.shape {
        case let .circle(center, defined):
            let clamped = RadiusClamp.clamp(defined, min: settings.minRadiusMeters, max: settings.maxRadiusMeters)
            radius = clamped
            clampedFrom = clamped == defined ? nil : defined
            geometry = .circle(CircleGeometry(center: center, radius: clamped))
            marginCap = clamped / 2
        case let .polygon(outer, holes):
            let polygon = PolygonGeometry(rings: ([outer] + holes).map(FenceValidation.openRing))
            geometry = .polygon(polygon)
            marginCap = polygon.halfInscribedSize
        case let .multiPolygon(members):
            let multi = MultiPolygonGeometry(members: members.map { member in
                PolygonGeometry(rings: ([member.outer] + member.holes).map(FenceValidation.openRing))
            })
            geometry = .multiPolygon(multi)
            marginCap = multi.largestMarginCap
        case let .corridor(line, defined):
            let clamped = RadiusClamp.clamp(defined, min: settings.minRadiusMeters, max: settings.maxRadiusMeters)
            buffer = clamped
            clampedFrom = clamped == defined ? nil : defined
            geometry = .corridor(CorridorGeometry(line: FenceValidation.openLine(line), buffer: clamped))
            // As a circle's is half its radius: the corridor's inscribed circle has the buffer as radius.
            marginCap = clamped / 2
        }
        return Storage(
            definition: definition, effectiveRadius: radius, effectiveBuffer: buffer, clampedFrom: clampedFrom,
            geometry: geometry, marginCap: marginCap, reachMargin: reachMargin(cap: marginCap, settings))
    }

    private static func reachMargin(cap: Double, _ settings: GeofenceSettings) -> Double {
        min(cap, max(settings.hysteresisMeters, settings.maxAccuracyMeters))
    }

    /// Distance from `point` to the boundary in metres: positive inside, negative outside.
    public func signedDistance(to point: Coordinate) -> Double {
        signedDistance(lat: point.lat, lon: point.lon)
    }

    func signedDistance(lat: Double, lon: Double) -> Double {
        geometry.signedDistance(to: ProbePoint(lat: lat, lon: lon))
    }

    /// The evidence margin's cap for a sample at `point` (docs/rules.md "The rules"): `marginCap`, except
    /// for a MultiPolygon, where the member the point is in, or else the nearest, decides.
    public func marginCap(near point: Coordinate) -> Double {
        geometry.measure(ProbePoint(lat: point.lat, lon: point.lon), cap: marginCap).cap
    }

    /// Where a point can be inside or within the evidence band of some sample: the index's key
    /// for this fence.
    public var reach: BoundingBox {
        switch geometry {
        case let .circle(circle): circle.boundingBox(grownBy: reachMargin)
        case let .polygon(polygon): polygon.boundingBox(grownBy: reachMargin)
        case let .multiPolygon(multi): multi.boundingBox(grownBy: reachMargin)
        case let .corridor(corridor): corridor.boundingBox(grownBy: reachMargin)
        }
    }
}
