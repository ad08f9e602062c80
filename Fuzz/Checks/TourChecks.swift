import FleetFenceCodecs
import GeofenceEngine

/// Tour definitions (docs/rules.md "Tours"): bytes go to `TourDecoder` as a `set` payload and as a
/// `PUT /api/tours/{id}` body (one reader for both). A definition that decodes has ids fit for a
/// topic level, reads back equal from its own encoding (the journal's form), and is either held
/// by an engine or refused with a `TourError`; a tour held has stops, none of them twice.
enum TourChecks {
    static func check(_ bytes: UnsafeRawBufferPointer) throws(InvariantViolation) {
        // A non-ASCII topic too: ids are their bytes, and a canonically equal spelling is another id.
        for topic in [nil, "fuzz", "Bu\u{0308}s"] as [String?] {
            guard let tour = try? TourDecoder.decodeDefinition(bytes, idFromTopic: topic) else { continue }
            if let topic { try require(Array(tour.id.utf8) == Array(topic.utf8), "id \(tour.id.debugDescription) from topic \(topic.debugDescription)") }
            for id in [tour.id] + tour.stops {
                try require(!id.utf8.contains { [0x2F, 0x2B, 0x23, 0].contains($0) }, "id \(id.debugDescription) accepted")
            }
            // Read back as the journal reads it: under its own id.
            let encoded = TourDefinitionEncoding.encode(tour)
            switch Result(catching: { () throws(TourDecodingError) in try TourDecoder.decodeDefinition(encoded, idFromTopic: tour.id) }) {
            case let .success(again):
                try require(
                    TourDefinitionEncoding.encode(again) == encoded,
                    "\(tour) encoded as \(String(decoding: encoded, as: UTF8.self)) reads back as \(again)")
            case let .failure(error):
                try require(false, "\(tour) encoded as \(String(decoding: encoded, as: UTF8.self)) does not read back: \(error)")
            }
            var engine = GeofenceEngine()
            guard (try? engine.setTour(tour)) != nil else { continue }
            try require(!tour.stops.isEmpty, "tour \(tour.id) held without stops")
            let distinct = Set(tour.stops.map { ExactID($0) })
            try require(distinct.count == tour.stops.count, "tour \(tour.id) held with a stop twice")
            try require(engine.tours.count == 1, "tour \(tour.id) accepted but \(engine.tours.count) held")
        }
    }
}
