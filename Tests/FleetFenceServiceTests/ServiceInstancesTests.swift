import FleetFenceService
import FleetFenceTesting
import Foundation
import Testing

/// Several named instances on one broker (docs/several-instances.md "Several instances"): each says whether it is up
/// on its own status topic, marks its alerts, and the fence registry comes from one of them only.
@Suite("Service: several instances on one broker", .timeLimit(.minutes(1)))
struct ServiceInstancesTests {
    @Test func eachInstanceHasItsStatusAndOneOfThemPublishesTheRegistry() async throws {
        var options = HarnessOptions()
        options[.instanceName] = "a"
        try await withService(options) { h in
            var second = h.serviceOptions
            second[.instanceName] = "b"
            second[.clientID] = h.clientID + "-b"
            second[.journalPath] = h.directory + "/b.db"
            let b = try await InProcessService.start(try await h.configuration(for: second), broker: h.memory)
            defer { Task { await b.stop() } }
            #expect(try await h.waitForRetained("fleetfence/status/a") { $0?.text == "online" }?.text == "online")
            #expect(try await h.waitForRetained("fleetfence/status/b") { $0?.text == "online" }?.text == "online")

            try await h.publish("fleetfence/fences/yard/set", Fences.circleDefinition(radius: 80, name: "Yard"))
            try await h.barrier()
            try await Task.sleep(for: .milliseconds(300))
            // Both applied it (b's journal holds it too), one published it.
            #expect(h.messages("fleetfence/fences/yard").count == 1, "\(h.messages("fleetfence/fences/yard"))")
            #expect(h.messages("fleetfence/fences/depot").count == 1)

            // The leader leaves: the other publishes what changes from then on, once.
            await h.service?.terminate()
            #expect(try await h.waitForRetained("fleetfence/status/a") { $0?.text == "offline" }?.text == "offline")
            try await h.publish("fleetfence/fences/gate/set", Fences.circleDefinition(radius: 40))
            #expect(await h.waitForMessages("fleetfence/fences/gate").count == 1)
            try await Task.sleep(for: .milliseconds(300))
            #expect(h.messages("fleetfence/fences/gate").count == 1)
            #expect(h.messages("fleetfence/fences/yard").count == 1)
            await b.stop()
        }
    }

    @Test func alertsSayWhichInstanceSentThem() async throws {
        var options = HarnessOptions()
        options[.instanceName] = "east"
        try await withService(options) { h in
            try await h.position("truck-7", north: 300, ts: T)
            try await h.position("truck-7", north: 100, ts: T + 10)
            try await h.position("truck-7", north: 100, ts: T + 12)
            let alerts = await h.waitForAlerts("truck-7", count: 1)
            #expect(alerts.first?.json.string("instance") == "east", "\(alerts)")
        }
    }
}
