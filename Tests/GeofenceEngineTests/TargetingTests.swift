import Foundation
import Testing

@testable import GeofenceEngine
import SeededRandom

/// docs/topics-and-payloads.md "Fences", `devices`: glob patterns on device ids decide who a fence applies to; a device
/// it is not for has no state there, gets no alert from it, and is never handed it by the index.
@Suite("Targeting: devices patterns")
struct TargetingTests {
    // MARK: Glob semantics

    @Test func starAndQuestionMark() {
        let cases: [(String, String, Bool)] = [
            ("*", "anything", true), ("truck-*", "truck-7", true), ("truck-*", "truck-", true), ("truck-*", "van-7", false),
            ("truck-?", "truck-7", true), ("truck-?", "truck-17", false), ("truck-??", "truck-17", true),
            ("*-north", "truck-north", true), ("*-north", "truck-north-2", false), ("a*b*c", "aXXbYYc", true),
            ("a*b*c", "aXXbYY", false), ("a*b*c", "abc", true), ("**", "", true), ("?", "", false),
            ("truck-7", "truck-7", true), ("truck-7", "truck-70", false), ("*7", "truck-7", true), ("t*7*", "truck-17-x", true),
            // `?` is one character, however many bytes it has.
            ("Bus-M?ller", "Bus-M\u{00FC}ller", true), ("Bus-M??ller", "Bus-M\u{00FC}ller", false),
            ("*\u{1F69A}", "fleet-\u{1F69A}", true), ("fleet-?", "fleet-\u{1F69A}", true),
        ]
        for (pattern, id, expected) in cases {
            #expect(DevicePattern.matches(pattern, id) == expected, "\(pattern) ~ \(id)")
        }
    }

    @Test func patternsCompareBytesNotCanonicalEquivalence() {
        let nfc = "Bus-M\u{00FC}ller", nfd = "Bus-Mu\u{0308}ller"
        #expect(nfc == nfd, "Swift calls them equal")
        #expect(DevicePattern.matches(nfc, nfc) && !DevicePattern.matches(nfc, nfd))
        #expect(DevicePattern.matches("Bus-M*", nfd))
    }

    /// Looking a device up by exact id and literal prefixes finds exactly the groups testing every
    /// pattern would.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func groupLookupAgreesWithTestingEveryPattern(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        let alphabet = ["a", "b", "-", "\u{00FC}", "7"]
        func word(_ n: ClosedRange<Int>) -> String { (0..<rng.int(n)).map { _ in alphabet.randomElement(using: &rng)! }.joined() }
        func pattern() -> String {
            (0..<rng.int(1...4)).map { _ in
                switch rng.uniform(0...1) {
                case ..<0.2: "*"
                case ..<0.35: "?"
                default: word(1...3)
                }
            }.joined()
        }
        var audiences = Audiences()
        var lists: [Int32: [String]] = [:]
        for _ in 0..<60 {
            let list = (0..<rng.int(1...3)).map { _ in pattern() }
            let group = audiences.acquire(list)
            if group != Audiences.everyone { lists[group] = list }
        }
        // Some groups go again: their patterns must no longer be found.
        for group in lists.keys.sorted().prefix(10) {
            audiences.release(group)
            lists[group] = nil
        }
        var matched = 0
        for _ in 0..<2_000 {
            let id = word(0...8)
            let expected = lists.filter { _, list in list.contains { DevicePattern.matches($0, id) } }.map(\.key).sorted()
            matched += expected.count
            #expect(audiences.groups(of: id) == expected, "\(id)")
        }
        #expect(matched > 500)
    }

    @Test func theSameListIsOneGroupAndEveryoneIsNone() {
        var audiences = Audiences()
        let a = audiences.acquire(["truck-*", "van-?"])
        #expect(audiences.acquire(["van-?", "truck-*", "truck-*"]) == a, "order and repeats do not matter")
        #expect(audiences.acquire(["truck-*", "*"]) == Audiences.everyone)
        #expect(audiences.acquire(["***"]) == Audiences.everyone)
        let version = audiences.version
        audiences.release(a)
        #expect(audiences.groups(of: "truck-1") == [a], "one user left")
        audiences.release(a)
        #expect(audiences.groups(of: "truck-1") == [] && audiences.version != version)
    }

    // MARK: The engine

    @Test func aDeviceTheFenceIsNotForHasNoStateAndNoAlert() throws {
        var h = try Harness([circle("depot", radius: 200).only(["truck-*"])])
        let path = driveThrough(startingAt: 420, speed: 10, interval: 5, count: 22)
        h.feed(path, device: "truck-1")
        h.feed(path, device: "van-1")
        #expect(events(h.alerts) == ["enter depot", "exit depot"])
        #expect(h.alerts.allSatisfy { $0.device == "truck-1" })
        #expect(h.engine.state(of: "van-1", in: "depot") == .unknown)
        // Parked in the middle: still nothing for the van.
        h.feed([sample(depot, t: T0 + 500)], device: "van-1")
        #expect(h.engine.insideFences(of: "van-1").isEmpty)
        #expect(h.engine.deviceRecord(for: "van-1")?.regions.isEmpty == true)
    }

    @Test func theIndexNeverHandsAFenceToADeviceItIsNotFor() throws {
        var engine = GeofenceEngine()
        try engine.setFence(circle("trucks", radius: 300).only(["truck-*"]))
        try engine.setFence(circle("vans", radius: 300).only(["van-?"]))
        try engine.setFence(circle("all", radius: 300))
        var transitions: [Transition] = []
        for device in ["truck-1", "van-1", "bike-1"] {
            engine.process(device: device, sample: sample(depot, t: T0), arrival: T0, into: &transitions)
        }
        func handed(_ device: String) -> [String] {
            let slot = engine.devices.slot(of: device)!
            var slots: [Int32] = []
            engine.index.candidates(lat: depot.lat, lon: depot.lon, groups: engine.devices.groups(of: Int(slot)), into: &slots)
            return slots.map { engine.fenceSlots[Int($0)]!.id }.sorted()
        }
        #expect(handed("truck-1") == ["all", "trucks"])
        #expect(handed("van-1") == ["all", "vans"])
        #expect(handed("bike-1") == ["all"])
        #expect(engine.insideFences(of: "van-1") == ["all", "vans"])
    }

    /// Devices' groups are found only once a fence is for some devices: until then the groups'
    /// columns hold nothing (memory a device, docs/performance.md "Memory by part"); a device
    /// forgotten and its place reused starts with none.
    @Test func groupsAreKeptOnlyOnceAFenceIsForSomeDevices() throws {
        var engine = GeofenceEngine()
        try engine.setFence(circle("all", radius: 300))
        var transitions: [Transition] = []
        for device in ["truck-1", "van-1", "bike-1"] {
            engine.process(device: device, sample: sample(depot, t: T0), arrival: T0, into: &transitions)
        }
        #expect(engine.devices.groups.isEmpty)
        try engine.setFence(circle("vans", radius: 300).only(["van-?"]))
        engine.process(device: "van-1", sample: sample(depot, t: T0 + 1), arrival: T0 + 1, into: &transitions)
        let van = Int(engine.devices.slot(of: "van-1")!)
        #expect(engine.devices.groups.count == van + 1)
        #expect(!engine.devices.groups(of: van).isEmpty)
        #expect(engine.devices.groups(of: Int(engine.devices.slot(of: "truck-1")!)).isEmpty)
        #expect(engine.insideFences(of: "van-1") == ["all", "vans"])
        // Forgotten, its place goes to a device that is no van, with no groups of the van's.
        _ = engine.forgetDevice("van-1")
        engine.process(device: "car-1", sample: sample(depot, t: T0 + 2), arrival: T0 + 2, into: &transitions)
        #expect(Int(engine.devices.slot(of: "car-1")!) == van)
        #expect(engine.devices.groups(of: van).isEmpty)
        #expect(engine.insideFences(of: "car-1") == ["all"])
    }

    @Test func aReplaceThatNoLongerMatchesExitsTheDevicesInside() throws {
        var h = try Harness([circle("depot", radius: 200, name: "Depot")])
        h.feed([sample(depot, t: T0)], device: "truck-1")
        h.feed([sample(depot, t: T0 + 1)], device: "van-1")
        h.feed([sample(atBoundary(radius: 200, d: 5), t: T0 + 2)], device: "van-2")  // in the band: pending nothing, unknown
        let update = try h.engine.setFence(circle("depot", radius: 200, name: "Depot").only(["truck-*"]), now: T0 + 100)
        #expect(update.replaced && !update.unchanged)
        #expect(update.transitions.map { "\($0.event.rawValue) \($0.device) \($0.reason ?? "")" } == ["exit van-1 unassigned"])
        let exit = try #require(update.transitions.first)
        #expect(exit.at == T0 + 100 && exit.confirmedAt == T0 + 100 && exit.durationSeconds == 99 && exit.fenceName == "Depot")
        #expect(exit.seq == 1)
        #expect(update.changes.map(\.device) == ["van-1"])
        #expect(Set(update.changedDevices) == ["van-1", "van-2"])
        #expect(h.engine.state(of: "van-1", in: "depot") == .unknown)
        #expect(h.engine.state(of: "van-2", in: "depot") == .unknown)
        #expect(h.engine.insideFences(of: "truck-1") == ["depot"], "a device still matched keeps its state")
        // The vans get nothing more from it.
        h.feed(eastWest([-400, -300, -200, 0, 0, 0, 0, 0, 0, 300, 400, 500, 600, 700, 800], from: T0 + 200), device: "van-1")
        #expect(h.alerts.isEmpty)
    }

    @Test func aReplaceThatNewlyMatchesADeviceIsFirstSightForIt() throws {
        var h = try Harness([circle("depot", radius: 200).only(["truck-*"])])
        h.feed([sample(depot, t: T0)], device: "van-1")
        let update = try h.engine.setFence(circle("depot", radius: 200).only(["truck-*", "van-*"]), now: T0 + 10)
        #expect(update.transitions.isEmpty)
        h.feed([sample(depot, t: T0 + 20)], device: "van-1")
        #expect(h.alerts.isEmpty, "first sight is silent")
        #expect(h.engine.state(of: "van-1", in: "depot") == .inside)
    }

    @Test func aFenceAddedForSomeDevicesIsFoundByDevicesSeenBefore() throws {
        var h = try Harness([circle("far", at: destination(depot, bearing: 0, meters: 5_000), radius: 100)])
        h.feed([sample(depot, t: T0)], device: "truck-1")
        try h.engine.setFence(circle("depot", radius: 200).only(["truck-?"]))
        try h.engine.setFence(circle("depot2", radius: 300).only(["van-*"]))
        h.feed([sample(depot, t: T0 + 10)], device: "truck-1")
        #expect(h.engine.insideFences(of: "truck-1") == ["depot"])
    }

    @Test func removingTheLastFenceOfAGroupForgetsThePatterns() throws {
        var engine = GeofenceEngine()
        try engine.setFence(circle("a", radius: 100).only(["truck-*"]))
        #expect(engine.audiences.hasTargetedGroups)
        engine.removeFence(id: "a", now: T0)
        #expect(!engine.audiences.hasTargetedGroups)
    }
}
