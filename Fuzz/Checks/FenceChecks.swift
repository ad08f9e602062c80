import FleetFenceCodecs
import Foundation
import GeofenceEngine

/// Fence definitions (docs/topics-and-payloads.md "Fences"): bytes go to `decodeDefinition` as a `set` payload and to
/// `decodeCollection` as a fences file. A definition that decodes has an id without `/`, `+`, `#` or NUL,
/// reads back equal from its own encoding (the journal's form), and builds an engine `Fence` or is refused
/// with a `FenceError` (an empty id among them); a fence that builds measures finite distances.
enum FenceChecks {
    static func check(_ bytes: UnsafeRawBufferPointer) throws(InvariantViolation) {
        // A non-ASCII topic too: ids are their bytes, and a canonically equal spelling is another id.
        for topic in [nil, "fuzz", "Bu\u{0308}s"] as [String?] {
            if let definition = try? FenceDecoder.decodeDefinition(bytes, idFromTopic: topic) {
                if let topic {
                    try require(Array(definition.id.utf8) == Array(topic.utf8), "id \(definition.id.debugDescription) from topic \(topic.debugDescription)")
                }
                try holds(definition)
            }
        }
        guard let features = try? FenceDecoder.decodeCollection(Data(bytes)) else { return }
        var ids = Set<String>()
        for case let .success(definition) in features {
            try require(ids.insert(definition.id).inserted, "fence id \(definition.id) twice in one file")
            try holds(definition)
        }
    }

    private static func holds(_ definition: FenceDefinition) throws(InvariantViolation) {
        try require(!definition.id.utf8.contains { [0x2F, 0x2B, 0x23, 0].contains($0) }, "fence id \(definition.id.debugDescription) accepted")
        let encoded = FenceDefinitionEncoding.encode(definition)
        switch Result(catching: { () throws(FenceDecodingError) in try FenceDecoder.decodeDefinition(encoded, idFromTopic: nil) }) {
        case let .success(again):
            try require(again == definition, "\(definition) encoded as \(String(decoding: encoded, as: UTF8.self)) reads back as \(again)")
        case let .failure(error):
            try require(false, "\(definition) encoded as \(String(decoding: encoded, as: UTF8.self)) does not read back: \(error)")
        }
        guard let fence = try? Fence(definition: definition, settings: GeofenceSettings()) else { return }
        try require(!fence.id.isEmpty, "a fence with an empty id built")
        try require(fence.marginCap.isFinite && fence.marginCap >= 0, "fence \(fence.id): margin cap \(fence.marginCap)")
        let reach = fence.reach
        try require(reach.minLat <= reach.maxLat && reach.minLon <= reach.maxLon, "fence \(fence.id): reach \(reach)")
        for probe in probes(reach) {
            let d = fence.signedDistance(to: probe)
            try require(d.isFinite, "fence \(fence.id): distance \(d) at \(probe)")
        }
    }

    /// The corners and the middle of the fence's reach, clamped to the globe.
    private static func probes(_ box: BoundingBox) -> [Coordinate] {
        func lat(_ x: Double) -> Double { min(90, max(-90, x)) }
        func lon(_ x: Double) -> Double { min(180, max(-180, x)) }
        return [
            Coordinate(lat: lat((box.minLat + box.maxLat) / 2), lon: lon((box.minLon + box.maxLon) / 2)),
            Coordinate(lat: lat(box.minLat), lon: lon(box.minLon)),
            Coordinate(lat: lat(box.maxLat), lon: lon(box.maxLon)),
        ]
    }
}
