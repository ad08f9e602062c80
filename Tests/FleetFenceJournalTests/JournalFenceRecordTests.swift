import FleetFenceCodecs
import GeofenceEngine
import Testing

@testable import FleetFenceJournal

/// A fence row's record: the definition as a `set` payload writes it, and the fences' version.
@Suite("Journal fence records")
struct JournalFenceRecordTests {
    let definition = FenceDefinitionEncoding.encode(
        FenceDefinition(id: "wdf01", shape: .circle(center: Coordinate(lat: 49.29, lon: 8.64), radius: 200)))

    @Test func aRecordDecodesToTheDefinitionItWasEncodedWith() throws {
        for generation: UInt32 in [0, 7, 4_000_000_000] {
            let record = JournalFenceRecord.encode(definition: definition, generation: generation)
            let decoded = try JournalFenceRecord.decode(record)
            #expect(try decoded.definition == FenceDecoder.decodeDefinition(definition, idFromTopic: nil))
            #expect(decoded.generation == generation)
        }
    }
}
