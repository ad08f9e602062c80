import Testing

@testable import FleetFenceService

/// Views are taken under the core's lock and applied to the read side off it, while a forget
/// reaches the read side when its step is committed: whichever lands first, a forgotten device
/// stays gone, and one that reported again after its forget is shown.
@Suite("ReadModel and forgets")
struct ReadModelForgetTests {
    private let cores = GeofenceCoreTests()

    private func views(_ core: inout GeofenceCore) -> (views: [DeviceView], forgets: Int) {
        (core.takeChangedViews(limit: 100), core.counters.forgotten)
    }

    private func forget(_ core: inout GeofenceCore, _ devices: String...) -> Effects {
        var effects = Effects()
        for device in devices { core.forget(device: device, reason: "asked to", into: &effects) }
        return effects
    }

    @Test func aViewTakenBeforeAForgetThatCommittedFirstIsLeftOut() throws {
        var core = try cores.core()
        let model = ReadModel()
        _ = cores.position(&core, "gone", north: 300, ts: 1_000)
        _ = cores.position(&core, "kept", north: 300, ts: 1_000)
        let taken = views(&core)
        let forgotten = forget(&core, "gone")
        model.committed([forgotten])
        model.update(devices: taken.views, takenAfter: taken.forgets)
        #expect(model.device("gone") == nil, "the older view would bring it back until the next start")
        #expect(model.device("kept") != nil)
        #expect(model.devices(after: nil, limit: 10).map(\.device) == ["kept"])
    }

    /// What the read side did before the numbering, and must still do.
    @Test func aForgetCommittedAfterTheViewsRemovesTheDevice() throws {
        var core = try cores.core()
        let model = ReadModel()
        _ = cores.position(&core, "gone", north: 300, ts: 1_000)
        let taken = views(&core)
        let forgotten = forget(&core, "gone")
        model.update(devices: taken.views, takenAfter: taken.forgets)
        #expect(model.device("gone") != nil)
        model.committed([forgotten])
        #expect(model.device("gone") == nil)
    }

    @Test func aDeviceThatReportedAgainAfterItsForgetIsShown() throws {
        var core = try cores.core()
        let model = ReadModel()
        _ = cores.position(&core, "back", north: 300, ts: 1_000)
        model.update(devices: views(&core).views, takenAfter: 0)
        model.committed([forget(&core, "back")])
        #expect(model.device("back") == nil)
        _ = cores.position(&core, "back", north: 250, ts: 1_010)
        let taken = views(&core)
        #expect(taken.forgets == 1)
        model.update(devices: taken.views, takenAfter: taken.forgets)
        #expect(model.device("back")?.lastSeen == 1_010)
    }

    /// The read model outlives a run; the next run's core numbers its forgets from 0 again, so a
    /// forget the last run committed after its last views says nothing of the next run's views.
    @Test func theNextRunsForgetsAreNumberedAfresh() throws {
        let model = ReadModel()
        var last = Effects()
        last.forgetsBefore = 40
        last.changes.removedDevices = ["back"]
        model.committed([last])  // the last run's 41st forget, after its last views
        model.coreStarted()
        var core = try cores.core()
        _ = cores.position(&core, "back", north: 300, ts: 1_000)
        let taken = views(&core)
        model.update(devices: taken.views, takenAfter: taken.forgets)
        #expect(model.device("back") != nil)
    }

    /// Forgets are numbered in turn within a step and across steps: a view taken after the first
    /// step's two forgets is older than the second step's.
    @Test func forgetsAreNumberedInTheOrderTheCoreMadeThem() throws {
        var core = try cores.core()
        let model = ReadModel()
        for device in ["a", "b", "c"] { _ = cores.position(&core, device, north: 300, ts: 1_000) }
        let first = forget(&core, "a", "b")
        #expect(first.forgetsBefore == 0 && first.changes.removedDevices == ["a", "b"])
        let second = forget(&core, "c")
        #expect(second.forgetsBefore == 2)
        model.committed([first, second])
        // A view of "c" taken after the first step's forgets, before the second's.
        _ = cores.position(&core, "a", north: 300, ts: 1_001)
        let stale = DeviceView(
            device: "c", inside: [], at: 1_000, lat: nil, lon: nil, lastSeen: 1_000, lastLat: nil, lastLon: nil, seq: 0)
        let taken = views(&core)
        model.update(devices: [stale], takenAfter: 2)
        #expect(model.device("c") == nil)
        model.update(devices: taken.views, takenAfter: taken.forgets)
        #expect(model.devices(after: nil, limit: 10).map(\.device) == ["a"])
    }
}
