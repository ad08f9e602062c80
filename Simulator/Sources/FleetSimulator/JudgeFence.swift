import Foundation
import GeofenceEngine

/// A fence as ground truth judges it, measured by the judge's own geometry (`JudgeGeometry`,
/// `JudgePolygon`) rather than the engine's `Fence`, which is what is being judged.
public struct JudgeFence: Sendable {
    public let definition: FenceDefinition
    /// A circle's radius after the clamp; `nil` for a polygon.
    public let radius: Double?
    /// The largest evidence margin: half the radius, or for a polygon half the radius of the
    /// largest circle inside it (README "The rules").
    public let marginCap: Double
    public let notify: Set<AlertEvent>
    private let shape: Shape

    private enum Shape: Sendable {
        case circle(center: Coordinate, radius: Double)
        case polygon(JudgePolygon)
    }

    public var id: String { definition.id }
    public var name: String? { definition.name }
    public var isClamped: Bool {
        guard case let .circle(_, defined) = definition.shape else { return false }
        return radius != defined
    }

    /// Refuses what the service refuses, then clamps a circle's radius into the settings' range.
    /// The engine's validation only decides which definitions exist; it places no boundary.
    public init(definition: FenceDefinition, settings: GeofenceSettings) throws {
        try FenceValidation.validate(definition)
        self.definition = definition
        notify = definition.effectiveNotify
        switch definition.shape {
        case let .circle(center, defined):
            let clamped = JudgeGeometry.clamp(radius: defined, lower: settings.minRadiusMeters, upper: settings.maxRadiusMeters)
            radius = clamped
            marginCap = clamped / 2
            shape = .circle(center: center, radius: clamped)
        case let .polygon(points, holes) where holes.isEmpty:
            let polygon = JudgePolygon(points: points)
            radius = nil
            marginCap = JudgeInscribedRadius.of(polygon) / 2
            shape = .polygon(polygon)
        case .polygon, .multiPolygon, .corridor:
            throw UnmeasuredShape(fence: definition.id)
        }
    }

    /// Metres from `point` to the boundary: positive inside, negative outside.
    public func signedDistance(to point: Coordinate) -> Double {
        switch shape {
        case let .circle(center, radius): JudgeGeometry.depth(of: point, inCircle: center, radius: radius)
        case let .polygon(polygon): polygon.signedDistance(to: point)
        }
    }

    /// How far past the boundary a sample must be to count as evidence: the hysteresis or the
    /// sample's accuracy, whichever is larger, but never more than `marginCap`.
    public func evidenceMargin(hysteresis: Double, accuracy: Double) -> Double {
        min(max(hysteresis, accuracy), marginCap)
    }

    /// A box around everything inside the fence or within `marginCap` of it.
    var reach: Box {
        switch shape {
        case let .circle(center, radius):
            Box(around: center.lat...center.lat, lons: center.lon...center.lon, grownBy: radius + marginCap)
        case let .polygon(polygon):
            Box(
                around: (polygon.origin.lat + polygon.latOffsets.min()!)...(polygon.origin.lat + polygon.latOffsets.max()!),
                lons: (polygon.origin.lon + polygon.lonOffsets.min()!)...(polygon.origin.lon + polygon.lonOffsets.max()!),
                grownBy: marginCap)
        }
    }
}

/// A shape the judge has no geometry of its own for (holes, MultiPolygons, corridors): a run
/// that needs it fails rather than scoring against a guess.
public struct UnmeasuredShape: Error, CustomStringConvertible {
    public var fence: String
    public var description: String { "fence \(fence): the judge does not measure polygons with holes, MultiPolygons or corridors" }
}

extension Box {
    /// The box of `lats` × `lons` grown by `margin` metres; every longitude when it nears a pole.
    init(around lats: ClosedRange<Double>, lons: ClosedRange<Double>, grownBy margin: Double) {
        let dLat = margin / JudgeGeometry.metersPerDegree
        let minLat = lats.lowerBound - dLat, maxLat = lats.upperBound + dLat
        let cosLat = cos(min(90, max(abs(minLat), abs(maxLat))) * .pi / 180)
        if minLat <= -90 || maxLat >= 90 || cosLat < 1e-6 || dLat / cosLat >= 180 {
            self.init(minLat: minLat, maxLat: maxLat, minLon: -540, maxLon: 540)
        } else {
            self.init(minLat: minLat, maxLat: maxLat, minLon: lons.lowerBound - dLat / cosLat, maxLon: lons.upperBound + dLat / cosLat)
        }
    }
}
