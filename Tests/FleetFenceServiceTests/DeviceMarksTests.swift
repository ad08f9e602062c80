import FleetFenceJournal
import GeofenceEngine
import Testing

@testable import FleetFenceService

/// Marks by the engine's places: each marked device taken once, in the order marked; a mark taken
/// off stays off; a place given to another device after a forget stands for that device.
@Suite("DeviceMarks")
struct DeviceMarksTests {
    private func engine(_ devices: [String]) -> (GeofenceEngine, [DeviceHandle]) {
        var engine = GeofenceEngine(settings: GeofenceSettings())
        let handles = devices.map { engine.handle(for: $0) }
        return (engine, handles)
    }

    @Test func eachMarkedDeviceIsTakenOnceInTheOrderMarked() {
        let (_, handles) = engine((0..<100).map { "d\($0)" })
        var marks = DeviceMarks()
        #expect(!marks.contains(handles[7]))
        for index in [7, 3, 99, 3, 0, 7, 42] { marks.mark(handles[index]) }
        #expect(marks.contains(handles[99]) && !marks.contains(handles[1]))
        let taken = marks.take()
        #expect(taken == [7, 3, 99, 0, 42].map { handles[$0] })
        #expect(!marks.contains(handles[7]))
        let again = marks.take()
        #expect(again.isEmpty, "taken once")
        marks.mark(handles[3])
        let marked = marks.take()
        #expect(marked == [handles[3]], "marked again after a take")
    }

    @Test func aMarkTakenOffIsNotTakenUnlessMarkedAgain() {
        let (_, handles) = engine(["a", "b", "c"])
        var marks = DeviceMarks()
        for handle in handles { marks.mark(handle) }
        let first = marks.unmark(handles[1])
        let second = marks.unmark(handles[1])
        #expect(first && !second, "once")
        #expect(!marks.contains(handles[1]) && marks.contains(handles[2]))
        let taken = marks.take()
        #expect(taken == [handles[0], handles[2]])
        marks.mark(handles[0])
        let off = marks.unmark(handles[0])
        #expect(off)
        marks.mark(handles[0])
        let twice = marks.take()
        #expect(twice == [handles[0]], "listed twice, taken once")
        let never = marks.unmark(handles[2])
        #expect(!never, "never marked since the take")
    }

    @Test func theFlagsGrowWithTheTable() {
        let (_, handles) = engine((0..<5_000).map { "d\($0)" })
        var marks = DeviceMarks()
        for handle in handles.reversed() { marks.mark(handle) }
        let taken = marks.take()
        #expect(taken == handles.reversed())
    }

    /// The core's records and views after a forget: the forgotten device's marks go with it, and
    /// the device given its place is taken as itself.
    @Test func aForgottenDevicesPlaceStandsForItsNextDevice() throws {
        let cores = GeofenceCoreTests()
        var core = try cores.core()
        _ = cores.position(&core, "old", north: 300, ts: 1_000)
        _ = core.takeDirtyDevices()
        _ = cores.position(&core, "old", north: 300, ts: 1_001)  // the same place: its clock alone
        _ = cores.position(&core, "other", north: 300, ts: 1_001)
        let place = try #require(core.engine.handle(ifHeld: "old"))
        #expect(core.clockOnlyDevices.contains(place) && core.changedViews.contains(place))
        _ = cores.position(&core, "old", north: 100, ts: 1_002)  // inside: a change pending
        #expect(core.dirtyDevices.contains(place))
        var effects = Effects()
        core.forget(device: "old", reason: "asked to", into: &effects)
        #expect(!core.dirtyDevices.contains(place) && !core.clockOnlyDevices.contains(place))
        #expect(!core.changedViews.contains(place))
        let others = core.takeChangedViews(limit: 10)
        #expect(others.map(\.device) == ["other"])
        _ = cores.position(&core, "new", north: 100, ts: 1_002)
        #expect(core.engine.handle(ifHeld: "new") == place, "the freed place is given out again")
        let dirty = core.takeDirtyDevices()
        #expect(core.heldRecords(of: dirty[...]).changes.heldDevices.map(\.device) == ["other", "new"])
        let views = core.takeChangedViews(limit: 10)
        #expect(views.map(\.device) == ["new"])
    }

    /// Places taken before a forget, copied after the place went to another device: what is
    /// copied is that device's state, under its own id, or nothing while the place is free.
    @Test func placesTakenBeforeAForgetCopyWhoeverHoldsThemNow() throws {
        let cores = GeofenceCoreTests()
        var core = try cores.core()
        _ = cores.position(&core, "old", north: 300, ts: 1_000)
        _ = cores.position(&core, "keep", north: 300, ts: 1_000)
        _ = cores.position(&core, "old", north: 300, ts: 1_001)
        _ = cores.position(&core, "keep", north: 300, ts: 1_001)
        _ = core.takeChangedViews(limit: 1)  // one view taken, one left due
        let dirty = core.takeDirtyDevices()
        let clocks = core.takeClockOnlyDevices()
        #expect(dirty.count == 2 && clocks.count == 2)
        var effects = Effects()
        core.forget(device: "old", reason: "asked to", into: &effects)
        let freed = core.heldRecords(of: dirty[...]).changes.heldDevices.map(\.device)
        #expect(freed == ["keep"], "a free place copies nothing")
        _ = cores.position(&core, "new", north: 100, ts: 1_005)
        let records = core.heldRecords(of: dirty[...]).changes.heldDevices
        #expect(Set(records.map(\.device)) == ["keep", "new"])
        #expect(records.first { $0.device == "new" }?.lastTimestamp == 1_005, "the new device's own state")
        let (logged, ids) = core.clockRecords(of: clocks[...])
        #expect(Set(logged.changes.loggedClocks.map(\.device)) == ["keep", "new"])
        #expect(Set(ids) == [ExactID("keep"), ExactID("new")])
        var views: [DeviceView] = []
        repeat { views += core.takeChangedViews(limit: 10) } while core.viewsAreDue
        #expect(!views.contains { $0.device == "old" })
    }
}
