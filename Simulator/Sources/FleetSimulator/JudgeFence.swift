import Foundation
import GeofenceEngine

/// A fence as ground truth judges it, measured by the judge's own geometry (`JudgeGeometry`,
/// `JudgePolygon`, `JudgeCorridor`) rather than the engine's `Fence`, which is what is being judged.
public struct JudgeFence: Sendable {
    public let definition: FenceDefinition
    /// A circle's radius after the clamp; `nil` for other shapes.
    public let radius: Double?
    /// A corridor's half-width after the clamp; `nil` for other shapes.
    public let buffer: Double?
    /// The largest evidence margin: half the radius (a corridor: half its buffer), for a polygon
    /// half the radius of the largest circle inside it, for a MultiPolygon its largest member's
    /// (docs/rules.md "The rules"; each member caps its own samples, see `measure`).
    public let marginCap: Double
    public let notify: Set<AlertEvent>
    private let shape: Shape

    private enum Shape: Sendable {
        case circle(center: Coordinate, radius: Double)
        case polygon(JudgePolygon)
        /// Each member with its own margin cap.
        case multiPolygon([(polygon: JudgePolygon, cap: Double)])
        case corridor(JudgeCorridor)
    }

    public var id: String { definition.id }
    public var name: String? { definition.name }
    public var speedLimitKmh: Double? { definition.speedLimitKmh }
    public var isClamped: Bool {
        switch definition.shape {
        case let .circle(_, defined): radius != defined
        case let .corridor(_, defined): buffer != defined
        case .polygon, .multiPolygon: false
        }
    }

    /// Refuses what the service refuses, then clamps a circle's radius and a corridor's buffer
    /// into the settings' range. The engine's validation only decides which definitions exist; it
    /// places no boundary.
    public init(definition: FenceDefinition, settings: GeofenceSettings) throws {
        try FenceValidation.validate(definition)
        self.definition = definition
        notify = definition.effectiveNotify
        let clamp = { (value: Double) in
            JudgeGeometry.clamp(radius: value, lower: settings.minRadiusMeters, upper: settings.maxRadiusMeters)
        }
        switch definition.shape {
        case let .circle(center, defined):
            let clamped = clamp(defined)
            radius = clamped
            buffer = nil
            marginCap = clamped / 2
            shape = .circle(center: center, radius: clamped)
        case let .polygon(points, holes):
            let polygon = JudgePolygon(points: points, holes: holes)
            radius = nil
            buffer = nil
            marginCap = JudgeInscribedRadius.of(polygon) / 2
            shape = .polygon(polygon)
        case let .multiPolygon(members):
            let measured = members.map { member in
                let polygon = JudgePolygon(points: member.outer, holes: member.holes)
                return (polygon: polygon, cap: JudgeInscribedRadius.of(polygon) / 2)
            }
            radius = nil
            buffer = nil
            marginCap = measured.map(\.cap).max() ?? 0
            shape = .multiPolygon(measured)
        case let .corridor(line, defined):
            // A corridor's widest inscribed circle has the buffer as its radius: capped as a circle is.
            let clamped = clamp(defined)
            radius = nil
            buffer = clamped
            marginCap = clamped / 2
            shape = .corridor(JudgeCorridor(line: line, buffer: clamped))
        }
    }

    /// Whether the fence applies to `device` (docs/topics-and-payloads.md "Fences", `devices`): a device it does not
    /// apply to has no state for it and expects nothing from it.
    public func applies(to device: String) -> Bool {
        JudgeDevicePattern.matches(definition.devices, device)
    }

    /// Metres from `point` to the boundary: positive inside, negative outside.
    public func signedDistance(to point: Coordinate) -> Double {
        measure(point).distance
    }

    /// The signed distance and the evidence margin's cap there. A MultiPolygon is measured by
    /// the member that decides the distance (the one the point is in, or else the nearest), and
    /// that member's cap applies (docs/rules.md "The rules"): a small island does not make a large
    /// member's boundary twitchy, nor does a large member widen the island's band.
    public func measure(_ point: Coordinate) -> (distance: Double, cap: Double) {
        switch shape {
        case let .circle(center, radius):
            return (JudgeGeometry.depth(of: point, inCircle: center, radius: radius), marginCap)
        case let .polygon(polygon):
            return (polygon.signedDistance(to: point), marginCap)
        case let .multiPolygon(members):
            var best = (distance: -Double.infinity, cap: marginCap)
            for member in members {
                let distance = member.polygon.signedDistance(to: point)
                if distance > best.distance { best = (distance, member.cap) }
            }
            return best
        case let .corridor(corridor):
            return (corridor.signedDistance(to: point), marginCap)
        }
    }

    /// How far past the boundary a sample must be to count as evidence: the hysteresis or the
    /// sample's accuracy, whichever is larger, but never more than `cap` (default `marginCap`;
    /// a MultiPolygon's depends on the point, see `measure`).
    public func evidenceMargin(hysteresis: Double, accuracy: Double, cap: Double? = nil) -> Double {
        min(max(hysteresis, accuracy), cap ?? marginCap)
    }

    /// A box around everything inside the fence or within `marginCap` of it.
    var reach: Box {
        switch shape {
        case let .circle(center, radius):
            return Box(around: center.lat...center.lat, lons: center.lon...center.lon, grownBy: radius + marginCap)
        case let .polygon(polygon):
            return Box(around: polygon.lats, lons: polygon.lons, grownBy: marginCap)
        case let .multiPolygon(members):
            // Longitudes unwrapped around the first member's, so that members either side of
            // ±180 make one box.
            let reference = members[0].polygon.origin.lon
            var lats = members[0].polygon.lats, lons = members[0].polygon.lons
            for member in members.dropFirst() {
                let shift = JudgePolygon.lonOffset(member.polygon.origin.lon, from: reference) + reference - member.polygon.origin.lon
                lats = min(lats.lowerBound, member.polygon.lats.lowerBound)...max(lats.upperBound, member.polygon.lats.upperBound)
                lons = min(lons.lowerBound, member.polygon.lons.lowerBound + shift)...max(lons.upperBound, member.polygon.lons.upperBound + shift)
            }
            return Box(around: lats, lons: lons, grownBy: marginCap)
        case let .corridor(corridor):
            return Box(around: corridor.lats, lons: corridor.lons, grownBy: corridor.buffer + marginCap)
        }
    }
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
