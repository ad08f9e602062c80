import FleetFenceCodecs
import GeofenceEngine
import Testing

@testable import FleetFenceJournal

/// A restart takes the fences file's record from a fence row only when the row holds exactly its bytes.
@Suite("Journal fence records")
struct JournalFenceRecordTests {
    let definition = FenceDefinitionEncoding.encode(
        FenceDefinition(id: "wdf01", shape: .circle(center: Coordinate(lat: 49.29, lon: 8.64), radius: 200)))

    @Test func aRecordHoldsTheDefinitionItWasEncodedWith() throws {
        for generation: UInt32 in [0, 7, 4_000_000_000] {
            let record = JournalFenceRecord.encode(definition: definition, generation: generation)
            #expect(JournalFenceRecord.holds(definition, in: record))
            #expect(try JournalFenceRecord.decode(record).definition == FenceDecoder.decodeDefinition(definition, idFromTopic: nil))
        }
    }

    @Test func anyOtherBytesAreNotHeld() {
        let record = JournalFenceRecord.encode(definition: definition, generation: 3)
        // The same length, one byte changed; longer; shorter; empty.
        var changed = definition
        changed[changed.count - 2] = UInt8(ascii: "1")
        #expect(!JournalFenceRecord.holds(changed, in: record))
        #expect(!JournalFenceRecord.holds(definition + [UInt8(ascii: " ")], in: record))
        #expect(!JournalFenceRecord.holds(Array(definition.dropLast()), in: record))
        #expect(!JournalFenceRecord.holds([], in: record))
        // Records not as `encode` writes them: read by decoding, as before.
        let spaced = Array(#"{"definition": "#.utf8) + definition + Array(#","generation":3}"#.utf8)
        #expect(!JournalFenceRecord.holds(definition, in: spaced))
        let reordered = Array(#"{"definition":"#.utf8) + definition + Array(#","generation":3,"x":1}"#.utf8)
        #expect(!JournalFenceRecord.holds(definition, in: reordered))
        #expect(!JournalFenceRecord.holds(definition, in: Array(record.dropLast())))
        #expect(!JournalFenceRecord.holds(definition, in: Array("{".utf8)))
    }
}
