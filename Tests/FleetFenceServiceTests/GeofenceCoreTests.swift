import FleetFenceCodecs
import FleetFenceJournal
import Foundation
import GeofenceEngine
import Testing

@testable import FleetFenceService

/// The core's decisions, called directly: no broker, no journal, no clock. Each test reads the
/// Effects a message or tick returns: what is journaled, and what is said in which order.
@Suite("GeofenceCore")
struct GeofenceCoreTests {
    static let centre = Coordinate(lat: 49.293406, lon: 8.641362)
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    func core(debounce: Double = 2) throws -> GeofenceCore {
        var core = GeofenceCore(
            engine: GeofenceEngine(settings: GeofenceSettings(debounceSeconds: debounce, silentConfirmSeconds: 5)),
            layout: TopicLayout(prefix: "ff"), positionFilters: ["fleet/+/position"])
        _ = try core.setFence(
            FenceDefinition(id: "depot", name: "Depot", shape: .circle(center: Self.centre, radius: 200)), origin: .runtime)
        return core
    }

    /// A position `metres` north of the depot's centre at event time `ts`.
    func position(_ core: inout GeofenceCore, _ device: String, north metres: Double, ts: Double) -> Effects {
        let payload = #"{"lat":\#(Self.centre.lat + metres / Self.metresPerDegree),"lon":\#(Self.centre.lon),"ts":\#(ts)}"#
        return message(&core, "fleet/\(device)/position", payload, arrival: ts)
    }

    func message(_ core: inout GeofenceCore, _ topic: String, _ payload: String, arrival: Double) -> Effects {
        Array(topic.utf8).withUnsafeBytes { topic in
            Array(payload.utf8).withUnsafeBytes { payload in core.handle(topic: topic, payload: payload, arrival: arrival) }
        }
    }

    /// A fences file of `definitions` applied whole to `core`: the effects of each of its steps.
    func applyFile(_ definitions: [FenceDefinition], digest: String, to core: inout GeofenceCore) -> [Effects] {
        var contents = FenceFile.Contents(path: "fences.geojson")
        contents.definitions = definitions
        contents.listedIDs = Set(definitions.map { ExactID($0.id) })
        let file = FenceFile.prepare(contents, digest: digest, settings: core.engine.settings, applied: core.lastFileFences)
        var emitted: [Effects] = []
        core.applyFenceFile(file, now: 1_000) { emitted.append($0) }
        return emitted
    }

    /// A file applied in several transactions (1,000 fences each): its first clears the digest of
    /// the file the record was of, its last sets the new file's, so that a crash between them
    /// leaves a record no digest vouches for (`FencesFileDigest`). A refused fence sets none.
    @Test func aFileAppliedInStepsClearsTheDigestFirstAndSetsItLast() throws {
        var core = try core()
        func apply(_ definitions: [FenceDefinition], digest: String) -> [Effects] { applyFile(definitions, digest: digest, to: &core) }
        let circles = (0..<12_000).map { index in
            FenceDefinition(id: "f\(index)", shape: .circle(center: Coordinate(lat: 49 + Double(index) * 1e-4, lon: 8.6), radius: 100))
        }
        let steps = apply(circles, digest: "1:aa")
        #expect(steps.count == 12)
        #expect(steps.map(\.changes.fencesFileDigest) == [.clear] + Array(repeating: nil, count: 10) + [.set("1:aa")])
        #expect(core.lastFileDigest == "1:aa")
        // A file of one step: the new digest alone.
        #expect(apply(circles, digest: "1:bb").map(\.changes.fencesFileDigest) == [.set("1:bb")])
        // A refused fence: the file is decoded again each time, so no digest.
        var refused = circles
        refused[5] = FenceDefinition(id: "f5", shape: .circle(center: Coordinate(lat: 49, lon: 8.6), radius: -1))
        #expect(apply(refused, digest: "1:cc").map(\.changes.fencesFileDigest) == [.clear])
        #expect(core.lastFileDigest == nil)
    }

    /// The service lets go of the core between a file's steps: a position between two of them is
    /// judged against the fences applied so far, and the file's last step still removes what the
    /// file no longer lists.
    @Test func aPositionBetweenTwoStepsOfAFileSeesTheFencesAppliedSoFar() throws {
        var core = try core()
        var contents = FenceFile.Contents(path: "fences.geojson")
        // 1,500 far-away circles, then one at the depot's centre: the second step's.
        contents.definitions = (0..<1_500).map { index in
            FenceDefinition(id: "far\(index)", shape: .circle(center: Coordinate(lat: 10 + Double(index) * 1e-3, lon: 8.6), radius: 100))
        } + [FenceDefinition(id: "yard", shape: .circle(center: Self.centre, radius: 150))]
        contents.listedIDs = Set(contents.definitions.map { ExactID($0.id) })
        let file = FenceFile.prepare(contents, digest: "1:dd", settings: core.engine.settings, applied: core.lastFileFences)
        var progress = GeofenceCore.FenceFileProgress()
        var steps: [Effects] = []
        #expect(!core.applyFenceFile(file, now: 1_000, progress: &progress) { steps.append($0) })
        #expect(core.engine.fence(id: "far999") != nil && core.engine.fence(id: "yard") == nil)
        _ = position(&core, "d", north: 0, ts: 1_000)
        #expect(core.engine.insideFences(of: "d") == ["depot"], "judged before the yard is held")
        // Run time, between the steps: the yard set otherwise, a fence of the second step deleted.
        _ = try core.setFence(FenceDefinition(id: "yard", shape: .circle(center: Self.centre, radius: 400)), origin: .runtime)
        _ = try core.setFence(FenceDefinition(id: "far1200", shape: .circle(center: Self.centre, radius: 50)), origin: .runtime)
        _ = core.removeFences(ids: ["far1200"], now: 1_000)
        #expect(core.applyFenceFile(file, now: 1_001, progress: &progress) { steps.append($0) })
        #expect(core.engine.fence(id: "yard")?.effectiveRadius == 400, "run time's, as if set after the file")
        #expect(core.fenceOrigins[ExactID("yard")] == .runtime)
        #expect(core.engine.fence(id: "far1200") == nil, "deleted at run time: stays deleted")
        #expect(core.engine.fence(id: "far1201") != nil)
        #expect(core.lastFileFences[ExactID("yard")]?.shape == .circle(center: Self.centre, radius: 150), "the record is the file's")
        #expect(core.engine.fence(id: "depot") != nil, "set at run time: not the file's to remove")
        #expect(steps.map(\.changes.fencesFileDigest) == [.clear, .set("1:dd")])
        #expect(steps.map(\.changes.fences.count) == [1_000, 499], "the second step's 501, less the two run time holds")
        #expect(steps.last?.changes.fileFences[ExactID("yard")] != nil)
        #expect(core.runtimeFenceChanges == nil, "followed only while a file goes into effect")
    }

    /// A file that changes more fences than a step takes leaves their registry entries to a round
    /// of the whole registry owed by its last step (published a slice at a time, paced by the
    /// broker); a file of fewer changes publishes each entry with its change, as a `set` does.
    @Test func aLargeFileLeavesItsRegistryEntriesToARoundAfterIt() throws {
        var core = try core()
        func apply(_ definitions: [FenceDefinition], digest: String) -> [Effects] { applyFile(definitions, digest: digest, to: &core) }
        func entries(_ steps: [Effects]) -> [String] {
            steps.flatMap(\.messages).map(\.topic).filter { $0.hasPrefix("ff/fences/") }
        }
        var circles = (0..<1_500).map { index in
            FenceDefinition(id: "f\(index)", shape: .circle(center: Coordinate(lat: 49 + Double(index) * 1e-4, lon: 8.6), radius: 100))
        }
        let large = apply(circles, digest: "1:aa")
        #expect(large.count == 2)
        #expect(entries(large).isEmpty, "no entry with the changes")
        #expect(large.map(\.registryOwed) == [false, true], "the round is owed by the last step, once every fence is held")
        let (ids, round) = core.registryRoundIDs()
        #expect(ids.count == 1_501)
        let sliced = core.registrySlice(ids)
        let slice = try #require(sliced)
        #expect(slice.registry.count == 1_501, "every fence in the round, the depot's entry too")
        #expect(slice.registry.first { $0.id == "f7" }?.effectiveRadius == 100)
        core.registryRoundEnded(round)

        // A few changes in the same large file: each entry with its change, no round.
        circles[7] = FenceDefinition(id: "f7", shape: .circle(center: Coordinate(lat: 49.0007, lon: 8.6), radius: 300))
        let small = apply(circles, digest: "1:bb")
        #expect(entries(small) == ["ff/fences/f7"])
        #expect(small.map(\.registryOwed) == [false])
        #expect(core.registryRound == nil)

        // A named instance that does not publish the registry owes no round.
        var follower = GeofenceCore(
            engine: GeofenceEngine(settings: GeofenceSettings(debounceSeconds: 2, silentConfirmSeconds: 5)),
            layout: TopicLayout(prefix: "ff", instance: "b"), positionFilters: ["fleet/+/position"])
        _ = follower.connected()
        _ = message(&follower, "ff/status/a", "online", arrival: 1_000)
        _ = message(&follower, "ff/status/b", "online", arrival: 1_000)
        var contents = FenceFile.Contents(path: "fences.geojson")
        contents.definitions = circles
        contents.listedIDs = Set(circles.map { ExactID($0.id) })
        let file = FenceFile.prepare(contents, digest: "1:cc", settings: follower.engine.settings, applied: [:])
        var followed: [Effects] = []
        follower.applyFenceFile(file, now: 1_000) { followed.append($0) }
        #expect(follower.engine.fenceCount == 1_500)
        #expect(entries(followed).isEmpty && !followed.contains(where: \.registryOwed), "instance a publishes it")
        // Instance a may stop before its round is through: leadership coming to b, b sends it all.
        #expect(!message(&follower, "ff/status/c", "online", arrival: 1_001).registryOwed)
        #expect(message(&follower, "ff/status/a", "offline", arrival: 1_002).registryOwed)
        #expect(!message(&follower, "ff/status/c", "offline", arrival: 1_003).registryOwed, "once")
    }

    /// The journal's record of the file holds only what the fence rows do not say: a fence the
    /// file set is its own entry; replaced or deleted at run time, or expired, its file version
    /// is written out in that step; one the file no longer lists leaves the record at the end.
    @Test func theFilesRecordIsWrittenOnlyWhereTheFenceRowsDoNotSayIt() throws {
        var core = try core()
        func definition(_ id: String, radius: Double = 100, expires: Double? = nil) -> FenceDefinition {
            FenceDefinition(id: id, shape: .circle(center: Self.centre, radius: radius), expiresAt: expires)
        }
        func apply(_ definitions: [FenceDefinition], digest: String) -> [Effects] { applyFile(definitions, digest: digest, to: &core) }
        let depot = FenceDefinition(id: "depot", name: "Depot", shape: .circle(center: Self.centre, radius: 200))
        let file = [definition("a"), definition("b"), definition("c"), definition("e", expires: 5_000), depot]
        let first = apply(file, digest: "1:aa")
        #expect(first.flatMap(\.changes.fences).map(\.id).sorted() == ["a", "b", "c", "e"])
        // The depot was set at run time, exactly as the file brings it: run time's, so written out.
        #expect(first.map(\.changes.fileFences) == [[ExactID("depot"): FenceDefinitionEncoding.encode(depot)]])
        #expect(core.fenceOrigins[ExactID("depot")] == .runtime)

        let (replaced, _) = core.setFence(id: "a", payload: Array(#"{"lat":49.3,"lon":8.6,"radius":300}"#.utf8), now: 2_000)
        #expect(replaced.changes.fileFences == [ExactID("a"): FenceDefinitionEncoding.encode(definition("a"))])
        let (deleted, _) = core.setFence(id: "b", payload: [], now: 2_000)
        #expect(deleted.changes.fileFences == [ExactID("b"): FenceDefinitionEncoding.encode(definition("b"))])
        var expired = Effects()
        core.expireFences(now: 6_000, into: &expired)
        #expect(expired.changes.removedFences == ["e"])
        #expect(expired.changes.fileFences == [ExactID("e"): FenceDefinitionEncoding.encode(definition("e", expires: 5_000))])
        // Set at run time again, a fence run time holds writes nothing of the file's.
        let (again, _) = core.setFence(id: "a", payload: Array(#"{"lat":49.3,"lon":8.6,"radius":250}"#.utf8), now: 2_001)
        #expect(again.changes.fileFences.isEmpty)
        // A fence of the record not held (the restore could not build it; its row still says
        // `file`): set at run time, its file version is written out too.
        core.lastFileFences[ExactID("gone")] = definition("gone")
        let (unheld, _) = core.setFence(id: "gone", payload: Array(#"{"lat":49.3,"lon":8.6,"radius":90}"#.utf8), now: 2_002)
        #expect(unheld.changes.fileFences == [ExactID("gone"): FenceDefinitionEncoding.encode(definition("gone"))])

        // The file without c: c is removed, and leaves the record with the file's last step only.
        let second = apply([definition("a"), definition("b"), definition("e", expires: 5_000), depot], digest: "1:bb")
        #expect(second.flatMap(\.changes.removedFences) == ["c"])
        #expect(second.allSatisfy { $0.changes.fileFences.isEmpty })
        #expect(Set(second.last?.changes.removedFileFences ?? []) == ["c", "gone"], "gone: the file does not list it either")
        #expect(core.engine.fence(id: "a")?.effectiveRadius == 250, "unchanged in the file: run time's stays")
        #expect(core.engine.fence(id: "b") == nil && core.engine.fence(id: "e") == nil)
    }

    /// Fences gone from a file are removed a step of 1,000 at a time, the digest set by the
    /// last; one set at run time between the steps is run time's, and stays.
    @Test func fencesGoneFromAFileAreRemovedInSteps() throws {
        var core = try core()
        func file(_ definitions: [FenceDefinition], digest: String) -> FenceFile {
            var contents = FenceFile.Contents(path: "fences.geojson")
            contents.definitions = definitions
            contents.listedIDs = Set(definitions.map { ExactID($0.id) })
            return FenceFile.prepare(contents, digest: digest, settings: core.engine.settings, applied: core.lastFileFences)
        }
        let circles = (0..<2_500).map { index in
            FenceDefinition(id: "f\(index)", shape: .circle(center: Coordinate(lat: 49 + Double(index) * 1e-4, lon: 8.6), radius: 100))
        }
        core.applyFenceFile(file(circles, digest: "1:aa"), now: 1_000) { _ in }
        #expect(core.engine.fenceCount == 2_501)
        let empty = file([], digest: "1:bb")
        var progress = GeofenceCore.FenceFileProgress()
        var steps: [Effects] = []
        #expect(!core.applyFenceFile(empty, now: 2_000, progress: &progress) { steps.append($0) })
        #expect(core.engine.fenceCount == 1_501)
        _ = try core.setFence(FenceDefinition(id: "f2400", shape: .circle(center: Self.centre, radius: 120)), origin: .runtime)
        while !core.applyFenceFile(empty, now: 2_000, progress: &progress, emit: { steps.append($0) }) {}
        // By id: f2400 is among the second thousand, and run time's by then.
        #expect(steps.map(\.changes.removedFences.count) == [1_000, 999, 500])
        #expect(steps.map(\.changes.fencesFileDigest) == [.clear, nil, .set("1:bb")])
        #expect(core.engine.fenceCount == 2, "the depot and f2400, both run time's")
        #expect(core.fenceOrigins[ExactID("f2400")] == .runtime)
        #expect(core.lastFileFences.isEmpty)
    }

    @Test func anEnterIsJournaledWithItsDeviceAndThenSaidInOrder() throws {
        var core = try core()
        let first = position(&core, "d", north: 300, ts: 1_000)
        #expect(first.changes.alerts.isEmpty)
        #expect(first.messages.map(\.topic) == ["ff/state/d"], "first sight is said, silently")
        #expect(first.changes.devices.isEmpty, "without an alert the record waits for the tick")
        #expect(position(&core, "d", north: 100, ts: 1_005).messages.isEmpty, "pending")
        let confirming = position(&core, "d", north: 100, ts: 1_008)

        #expect(confirming.changes.alerts.map(\.transition.event) == [.enter])
        #expect(confirming.changes.devices.map(\.device) == ["d"], "the device's record rides with its alert")
        #expect(confirming.messages.map(\.topic) == ["ff/alerts/d/depot/enter", "ff/state/d"])
        #expect(confirming.messages.map(\.qos) == [1, 1])
        #expect(confirming.messages.map(\.retain) == [false, true])
        #expect(confirming.messages.first?.payload == confirming.changes.alerts.first?.payload, "one payload, journaled and said")
        #expect(core.counters.alerts == 1)
        let left = core.takeDirtyDevices()
        #expect(left.isEmpty, "the record went with the alert")
    }

    /// The core names the webhooks each alert is queued for, in the alert's own journal change
    /// (docs/webhooks.md "Webhooks"); a fence removal's exits too.
    @Test func eachAlertCarriesTheWebhooksItMatches() throws {
        var core = try core()
        var exits = WebhookSettings(name: "exits", url: "http://x/")
        exits.events = ["exit"]
        var vans = WebhookSettings(name: "vans", url: "http://x/")
        vans.devices = ["van-*"]
        core.webhooks = WebhookRoutes([WebhookSettings(name: "all", url: "http://x/"), exits, vans])
        _ = position(&core, "truck-1", north: 300, ts: 1_000)
        _ = position(&core, "truck-1", north: 100, ts: 1_005)
        let enter = position(&core, "truck-1", north: 100, ts: 1_008)
        #expect(enter.changes.alerts.map(\.webhooks) == [["all"]])
        let removal = core.removeFences(ids: ["depot"], now: 2_000)
        #expect(removal.changes.alerts.map(\.webhooks) == [["all", "exits"]])
        core.webhooks = WebhookRoutes()
        _ = try core.setFence(
            FenceDefinition(id: "depot", name: "Depot", shape: .circle(center: Self.centre, radius: 200)), origin: .runtime)
        _ = position(&core, "van-1", north: 300, ts: 3_000)
        _ = position(&core, "van-1", north: 100, ts: 3_005)
        #expect(position(&core, "van-1", north: 100, ts: 3_008).changes.alerts.map(\.webhooks) == [[]], "none in force")
    }

    @Test func aRejectedPositionIsAnsweredAndJournalsNothing() throws {
        var core = try core()
        let effects = message(&core, "fleet/d/position", "junk", arrival: 1_000)
        #expect(effects.changes.isEmpty)
        #expect(effects.messages.map(\.topic) == ["ff/errors/d"])
        #expect(effects.messages.first?.qos == 0)
        #expect(effects.logs.map(\.message) == ["rejected message"])
        #expect(core.counters.rejected == 1)
        #expect(message(&core, "elsewhere/d", "junk", arrival: 1_000).isEmpty, "an unrelated topic is not answered")
    }

    /// A flood of bad messages is answered every time but logged 20 times an interval.
    @Test func rejectionsAreLoggedTwentyTimesAnInterval() throws {
        var core = try core()
        let logged = (0..<25).map { _ in message(&core, "fleet/d/position", "{}", arrival: 1_000).logs.count }
        #expect(logged.reduce(0, +) == 20)
        #expect(core.counters.unloggedRejections == 5)
    }

    /// The exits of a removed fence and the removal are one transaction, and the exit is said
    /// before the registry entry is cleared.
    @Test func removingAFenceExitsTheDevicesInsideInOneStep() throws {
        var core = try core()
        _ = position(&core, "d", north: 100, ts: 1_000)
        let removal = core.removeFences(ids: ["depot", "unknown"], now: 2_000)
        #expect(removal.changes.alerts.map(\.transition.reason) == ["fence_removed"])
        #expect(removal.changes.removedFences == ["depot"])
        #expect(removal.changes.devices.map(\.device) == ["d"])
        #expect(removal.messages.map(\.topic) == ["ff/alerts/d/depot/exit", "ff/state/d", "ff/fences/depot"])
        #expect(removal.messages.last?.payload == [], "an empty retained message clears the registry entry")
        #expect(core.removeFences(ids: ["depot"], now: 2_001).isEmpty)
    }

    /// A connect owes the whole registry to the service's slices, not to one step; a slice is
    /// taken from the fences held at its step: one removed since is skipped, one replaced goes with
    /// its own change and not again, and an instance that is not the registry's publisher sends none.
    @Test func theRegistryIsOwedAtAConnectAndSentBySlicesAsHeld() throws {
        var core = try core()
        _ = try core.setFence(
            FenceDefinition(id: "gate", shape: .circle(center: Self.centre, radius: 300)), origin: .runtime)
        _ = try core.setFence(
            FenceDefinition(id: "yard", shape: .circle(center: Self.centre, radius: 200)), origin: .runtime)
        let connected = core.connected()
        #expect(connected.registryOwed)
        #expect(connected.registry.isEmpty, "no fence waits in the connect's own step")
        let (ids, round) = core.registryRoundIDs()
        _ = core.removeFences(ids: ["gate"], now: 2_000)
        let replaced = try core.setFence(
            FenceDefinition(id: "depot", shape: .circle(center: Self.centre, radius: 250)), origin: .runtime)
        #expect(replaced.messages.map(\.topic) == ["ff/fences/depot"])
        let slice = core.registrySlice(ids)
        #expect(slice?.registry.map(\.id) == ["yard"], "depot went with its change; sliced too, it went twice")
        // Once the round has ended, a change is sent by itself, and a next round sends every fence.
        core.registryRoundEnded(round)
        _ = try core.setFence(
            FenceDefinition(id: "depot", shape: .circle(center: Self.centre, radius: 260)), origin: .runtime)
        #expect(core.registryRound == nil)
        _ = core.connected()
        let next = core.registrySlice(core.registryRoundIDs().ids)
        #expect(Set(next?.registry.map(\.id) ?? []) == ["depot", "yard"])
        #expect(next?.registry.first { $0.id == "depot" }?.effectiveRadius == 260)

        // Named instances: the registry is owed once the instance's own status is back, to the
        // one with the smallest name among those online.
        func instance(_ name: String) -> GeofenceCore {
            GeofenceCore(engine: core.engine, layout: TopicLayout(prefix: "ff", instance: name), positionFilters: ["fleet/+/position"])
        }
        var leader = instance("a")
        #expect(!leader.connected().registryOwed, "owed only once its own status is back")
        #expect(message(&leader, "ff/status/a", "online", arrival: 1_000).registryOwed)
        #expect(Set(leader.registrySlice(ids)?.registry.map(\.id) ?? []) == ["depot", "yard"])

        var follower = instance("b")
        _ = follower.connected()
        _ = message(&follower, "ff/status/a", "online", arrival: 1_000)
        #expect(!message(&follower, "ff/status/b", "online", arrival: 1_000).registryOwed, "instance a publishes it")
        #expect(!message(&follower, "ff/status/a", "offline", arrival: 1_001).registryOwed, "leadership moving on publishes nothing")
        // Leadership lost while the slices go: the rest is owed again, and goes whole once it is back.
        _ = message(&follower, "ff/status/a", "online", arrival: 1_002)
        #expect(follower.registrySlice(ids) == nil)
        #expect(message(&follower, "ff/status/a", "offline", arrival: 1_003).registryOwed)
    }

    /// Silence confirms a pending change at the tick; other changed devices are taken after it and
    /// go as held records, which may wait behind later alerts.
    @Test func aTickConfirmsBySilenceAndHoldsTheOtherRecords() throws {
        var core = try core()
        _ = position(&core, "quiet", north: 300, ts: 1_000)
        _ = position(&core, "quiet", north: 100, ts: 1_001)
        _ = position(&core, "other", north: 300, ts: 1_001)
        let early = core.tick(now: 1_003)
        #expect(early.changes.alerts.isEmpty)
        #expect(early.changes.heldDevices.isEmpty)
        let dirty = core.takeDirtyDevices()
        #expect(Set(dirty.map { core.engine.deviceID($0) }) == ["quiet", "other"])
        #expect(core.takeDirtyDevices().isEmpty, "taken once")
        let held = core.heldRecords(of: dirty[...]).changes
        #expect(Set(held.heldDevices.map(\.device)) == ["quiet", "other"])
        let tick = core.tick(now: 1_007)
        #expect(tick.changes.alerts.map(\.transition.event) == [.enter])
        #expect(tick.changes.devices.map(\.device) == ["quiet"])
        #expect(tick.messages.map(\.topic) == ["ff/alerts/quiet/depot/enter", "ff/state/quiet"])
        #expect(core.takeDirtyDevices().isEmpty, "written with its alert")
    }

    /// A fence set over MQTT is journaled with its origin and published retained.
    @Test func aFenceSetIsJournaledThenRegistered() throws {
        var core = try core()
        let effects = message(&core, "ff/fences/yard/set", #"{"lat":10,"lon":10,"radius":5}"#, arrival: 1_000)
        #expect(effects.changes.fences.map(\.id) == ["yard"])
        #expect(effects.changes.fences.first?.origin == .runtime)
        #expect(effects.messages.map(\.topic) == ["ff/fences/yard"])
        #expect(effects.messages.first?.retain == true)
        // The read side follows the fence once the step is committed.
        #expect(effects.heldFences.map(\.id) == ["yard"])
        #expect(effects.logs.map(\.message).contains("fence radius clamped"))
        let bad = message(&core, "ff/fences/yard/set", #"{"lat":100,"lon":10,"radius":5}"#, arrival: 1_000)
        #expect(bad.changes.isEmpty)
        #expect(bad.messages.map(\.topic) == ["ff/errors/fences"])
    }

    /// The read side takes changed devices in slices, each once.
    @Test func changedViewsAreTakenInSlices() throws {
        var core = try core()
        for index in 0..<25 { _ = position(&core, "d\(index)", north: 100, ts: 1_000) }
        let first = core.takeChangedViews(limit: 10)
        let second = core.takeChangedViews(limit: 10)
        let third = core.takeChangedViews(limit: 10)
        #expect([first.count, second.count, third.count] == [10, 10, 5] as [Int])
        #expect(Set((first + second + third).map(\.device)).count == 25)
        #expect(third.first?.inside == ["depot"])
        #expect(core.takeChangedViews(limit: 10).isEmpty)
    }
}
