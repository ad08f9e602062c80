/// Several polygons as one fence: a point's signed distance is the largest of its distances to
/// the members (inside one member: its depth there; outside all: minus the distance to the
/// nearest). Members that overlap count as their union, measured conservatively.
final class MultiPolygonGeometry: Sendable {
    let members: [PolygonGeometry]
    /// The largest member cap: what bounds the fence's reach and the index's quick rejection.
    let largestMarginCap: Double

    init(members: [PolygonGeometry]) {
        self.members = members
        largestMarginCap = members.map(\.halfInscribedSize).max()!
    }

    func signedDistance(to point: Coordinate) -> Double {
        nearest(to: point).distance
    }

    /// docs/rules.md "The rules": a MultiPolygon's evidence margin is capped by the member that decides
    /// the distance (the one the point is in, or else the nearest): a small island does not make a
    /// large member's boundary twitchy, and a large member does not widen the island's band.
    func nearest(to point: Coordinate) -> (distance: Double, marginCap: Double) {
        var best = -Double.infinity
        var cap = members[0].halfInscribedSize
        for member in members {
            let (x, y) = member.localPoint(point)
            // A member whose box is farther than the best so far cannot beat it.
            if -member.distanceToBox(x, y) <= best { continue }
            let distance = member.signedDistance(to: point)
            if distance > best {
                best = distance
                cap = member.halfInscribedSize
            }
        }
        return (best, cap)
    }

    /// The members' boxes together, longitudes unwrapped around the first member's.
    func boundingBox(grownBy margin: Double) -> BoundingBox {
        let boxes = members.map { $0.boundingBox(grownBy: margin) }
        var union = boxes[0]
        for var box in boxes.dropFirst() {
            if box.coversAllLongitudes || union.coversAllLongitudes {
                union.minLon = -180
                union.maxLon = 180 + 360
            } else {
                let shift = ((union.minLon + union.maxLon) / 2 - (box.minLon + box.maxLon) / 2) / 360
                let turns = shift.rounded()
                box.minLon += 360 * turns
                box.maxLon += 360 * turns
                union.minLon = min(union.minLon, box.minLon)
                union.maxLon = max(union.maxLon, box.maxLon)
            }
            union.minLat = min(union.minLat, box.minLat)
            union.maxLat = max(union.maxLat, box.maxLat)
        }
        if union.maxLon - union.minLon >= 360 {
            union.minLon = -180
            union.maxLon = 180 + 360
        }
        return union
    }
}
