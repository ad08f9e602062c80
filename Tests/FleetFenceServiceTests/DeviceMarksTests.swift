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
        #expect(marks.isEmpty)
        for index in [7, 3, 99, 3, 0, 7, 42] { marks.mark(handles[index]) }
        #expect(marks.count == 5)
        #expect(marks.contains(handles[99]) && !marks.contains(handles[1]))
        let taken = marks.take()
        #expect(taken == [7, 3, 99, 0, 42].map { handles[$0] })
        #expect(marks.isEmpty)
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
        #expect(marks.count == 2)
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
        _ = cores.position(&core, "old", north: 280, ts: 1_001)
        let place = try #require(core.engine.handle(of: "old"))
        #expect(core.dirtyDevices.contains(place) || core.clockOnlyDevices.contains(place))
        var effects = Effects()
        core.forget(device: "old", reason: "asked to", into: &effects)
        #expect(core.dirtyDevices.isEmpty && core.clockOnlyDevices.isEmpty && core.changedViews.isEmpty)
        let none = core.takeChangedViews(limit: 10)
        #expect(none.isEmpty)
        _ = cores.position(&core, "new", north: 100, ts: 1_002)
        #expect(core.engine.handle(of: "new") == place, "the freed place is given out again")
        let dirty = core.takeDirtyDevices()
        #expect(core.heldRecords(of: dirty[...]).changes.heldDevices.map(\.device) == ["new"])
        let views = core.takeChangedViews(limit: 10)
        #expect(views.map(\.device) == ["new"])
    }
}
