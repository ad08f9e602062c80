import Testing

@testable import GeofenceEngine

/// `RegionEntry` boxes its pending change and speeding run: the box must behave as a value, and
/// the entry stay small, since every device's regions and every held snapshot are made of them.
struct RegionEntryTests {
    @Test func anEntryIsTwentyFourBytes() {
        #expect(MemoryLayout<RegionEntry>.stride == 24)
    }

    @Test func aCopyKeepsItsPendingChangeWhenTheOriginalChanges() {
        var entry = RegionEntry(fenceSlot: 3, state: .outside)
        entry.pending = PendingChange(crossedAt: 10, evidenceSince: nil, lat: 1, lon: 2)
        let snapshot = entry
        entry.pending!.evidenceSince = 12
        entry.speeding = SpeedingEpisode(since: 11, maxSpeed: 30, alerted: false, calmSince: nil)

        #expect(snapshot.pending == PendingChange(crossedAt: 10, evidenceSince: nil, lat: 1, lon: 2))
        #expect(snapshot.speeding == nil)
        #expect(entry.pending?.evidenceSince == 12)
        #expect(entry.speeding?.since == 11)
        #expect(!entry.isDefault)
    }

    /// The box is changed in place when the entry alone holds it: as the engine judges, in its
    /// array, while a held sample's snapshot of the array shares the boxes.
    @Test func aSnapshotOfTheArrayKeepsItsBoxesWhileTheArrayChangesInPlace() {
        var entries = [RegionEntry(
            fenceSlot: 1, state: .outside, pending: PendingChange(crossedAt: 5, evidenceSince: nil, lat: 1, lon: 1))]
        entries[0].pending!.lat = 2
        #expect(entries[0].pending?.lat == 2)
        let snapshot = entries
        entries[0].pending!.lat = 3
        entries[0].speeding = SpeedingEpisode(since: 6, maxSpeed: 50, alerted: false, calmSince: nil)
        entries[0].speeding!.maxSpeed = 60
        let again = entries
        entries[0].pending!.evidenceSince = 7

        #expect(snapshot[0].pending == PendingChange(crossedAt: 5, evidenceSince: nil, lat: 2, lon: 1))
        #expect(snapshot[0].speeding == nil)
        #expect(again[0].pending?.evidenceSince == nil)
        #expect(again[0].speeding?.maxSpeed == 60)
        #expect(entries[0].pending == PendingChange(crossedAt: 5, evidenceSince: 7, lat: 3, lon: 1))
    }

    @Test func clearingBothLeavesADefaultEntry() {
        var entry = RegionEntry(
            fenceSlot: 0, state: .outside, pending: PendingChange(crossedAt: 1, evidenceSince: 1, lat: 0, lon: 0),
            speeding: SpeedingEpisode(since: 1, maxSpeed: 40, alerted: true, calmSince: nil))
        entry.pending = nil
        #expect(entry.speeding?.maxSpeed == 40)
        entry.speeding = nil
        #expect(entry.pending == nil && entry.speeding == nil)
        #expect(entry.isDefault)
    }
}
