/// The checks a definition must pass before it becomes a fence (docs/topics-and-payloads.md "Fences"). Invalid values
/// are rejected, never repaired: a clamp is only for finite, positive radii and buffers.
public enum FenceValidation {
    /// The crossing check compares edges, and every sample near a polygon or corridor measures its
    /// edges: beyond this (all rings, or a corridor's line, together) a single fence could stall
    /// the service for seconds.
    public static let maxPolygonPoints = 10_000

    public static func validate(_ definition: FenceDefinition) throws(FenceError) {
        if let bytes = IDRules.badLength(definition.id) { throw bytes == 0 ? .emptyID : .idTooLong(bytes: bytes) }
        if let dwell = definition.dwellSeconds, !(dwell.isFinite && dwell > 0) { throw .invalidDwell(dwell) }
        if definition.effectiveNotify.contains(.dwell), definition.dwellSeconds == nil { throw .dwellWithoutDuration }
        if let event = definition.effectiveNotify.subtracting(AlertEvent.notifiable).min() { throw .notNotifiable(event) }
        if let limit = definition.speedLimitKmh, !(limit.isFinite && limit > 0) { throw .invalidSpeedLimit(limit) }
        if let expiry = definition.expiresAt, !expiry.isFinite { throw .invalidExpiry(expiry) }
        do throws(DevicePatternError) {
            try DevicePattern.validate(definition.devices)
        } catch {
            throw .invalidDevices(error)
        }
        try validate(definition.shape)
    }

    static func validate(_ shape: FenceShape) throws(FenceError) {
        switch shape {
        case let .circle(center, radius):
            guard center.isValid else { throw .invalidCoordinate(lat: center.lat, lon: center.lon) }
            guard radius.isFinite, radius > 0 else { throw .invalidRadius(radius) }
        case let .polygon(outer, holes):
            try validate(polygons: [PolygonRings(outer: outer, holes: holes)], multi: false)
        case let .multiPolygon(polygons):
            if polygons.isEmpty { throw .emptyMultiPolygon }
            try validate(polygons: polygons, multi: true)
        case let .corridor(line, buffer):
            for point in line where !point.isValid { throw .invalidCoordinate(lat: point.lat, lon: point.lon) }
            let path = openLine(line)
            if path.count > maxPolygonPoints { throw .tooManyPoints(count: path.count, limit: maxPolygonPoints) }
            let distinct = Set(path).count
            if distinct < 2 { throw .lineTooShort(distinct: distinct) }
            guard buffer.isFinite, buffer > 0 else { throw .invalidBuffer(buffer) }
        }
    }

    private static func validate(polygons: [PolygonRings], multi: Bool) throws(FenceError) {
        for polygon in polygons {
            for ring in [polygon.outer] + polygon.holes {
                for point in ring where !point.isValid { throw .invalidCoordinate(lat: point.lat, lon: point.lon) }
            }
        }
        let rings = RingValidation.rings(of: polygons, multi: multi)
        let count = rings.reduce(0) { $0 + $1.points.count }
        if count > maxPolygonPoints { throw .tooManyPoints(count: count, limit: maxPolygonPoints) }
        try RingValidation.validate(rings, plainOuterOnly: !multi && rings.count == 1)
    }

    /// The ring without its closing point and without repeated consecutive points (which GPS
    /// tools produce and which carry no shape).
    static func openRing(_ points: [Coordinate]) -> [Coordinate] {
        var ring = openLine(points)
        while ring.count > 1, ring.first == ring.last { ring.removeLast() }
        return ring
    }

    /// A line without repeated consecutive points.
    static func openLine(_ points: [Coordinate]) -> [Coordinate] {
        var line: [Coordinate] = []
        for point in points where line.last != point { line.append(point) }
        return line
    }

    /// Whether one ring crosses or touches itself.
    static func isSelfIntersecting(_ ring: [Coordinate]) -> Bool {
        let origin = ring[0]
        return RingValidation.firstCrossing([ring.map { (x: Earth.wrappedLongitudeDelta($0.lon, from: origin.lon), y: $0.lat) }]) != nil
    }
}
