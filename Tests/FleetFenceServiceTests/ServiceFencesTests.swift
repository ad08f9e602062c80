import FleetFenceTesting
import Foundation
import Testing

@testable import FleetFenceJournal

/// Fences at run time (`fleetfence/fences/<id>/set`) and the fences file reloaded on SIGHUP.
@Suite("Service end to end: fences at run time", .timeLimit(.minutes(1)))
struct ServiceFencesTests {
    @Test func addFenceAtRunTime() async throws {
        let yard = Geo.north(5_000)
        try await withService { h in
            try await h.publish(
                "fleetfence/fences/yard/set",
                Fences.circleDefinition(lat: yard.lat, lon: yard.lon, radius: 150, name: "Yard", notify: ["enter", "exit"]))
            let feature = Fences.json([
                "type": "Feature", "properties": ["name": "Dock", "radius": 80],
                "geometry": ["type": "Point", "coordinates": [10.0, 10.0]],
            ])
            try await h.publish("fleetfence/fences/dock/set", feature)
            try await h.publish("fleetfence/fences/tiny/set", Fences.circleDefinition(lat: 11, lon: 11, radius: 1))
            await h.waitForMessages("fleetfence/fences/tiny")

            let registry = try await h.retained("fleetfence/fences/+")
            let byTopic = Dictionary(uniqueKeysWithValues: registry.compactMap { m in JSONObject(m.payload).map { (m.topic, $0) } })
            #expect(Set(byTopic.keys) == [
                "fleetfence/fences/depot", "fleetfence/fences/yard", "fleetfence/fences/dock", "fleetfence/fences/tiny",
            ])
            #expect(byTopic["fleetfence/fences/tiny"]?.double("radius") == 20, "clamped to min_radius_m")
            #expect(byTopic["fleetfence/fences/tiny"]?.bool("clamped") == true)
            let entry = try #require(byTopic["fleetfence/fences/yard"])
            #expect(entry.string("id") == "yard")
            #expect(entry.string("name") == "Yard")
            #expect(near(entry.double("lat"), yard.lat, tolerance: 1e-9))
            #expect(entry.double("radius") == 150)
            #expect(entry.strings("notify") == ["enter", "exit"])
            #expect(entry.bool("clamped") != true)
            #expect(byTopic["fleetfence/fences/dock"]?.double("radius") == 80)
            #expect(h.errors("fences").isEmpty)

            try await h.position("y", north: 300, ts: T, of: yard)
            try await h.position("y", north: 50, ts: T + 10, of: yard)
            try await h.position("y", north: 50, ts: T + 12, of: yard)
            let alerts = await h.waitForAlerts("y", count: 1)
            #expect(alerts.map(\.topic) == ["fleetfence/alerts/y/yard/enter"])
            #expect(alerts.first?.json.double("radius_m") == 150)
            #expect(alerts.first?.json.string("name") == "Yard")
        }
    }

    @Test func replacingAFenceKeepsDeviceState() async throws {
        try await withService { h in
            try await h.position("r", north: 300, ts: T)
            try await h.position("r", north: 100, ts: T + 10)
            try await h.position("r", north: 100, ts: T + 12)  // enter depot (200 m)
            await h.waitForAlerts("r", count: 1)

            h.collector.clear()
            try await h.publish("fleetfence/fences/depot/set", Fences.circleDefinition(radius: 400, name: "Depot XL"))
            let update = await h.waitForMessages("fleetfence/fences/depot").first.flatMap { JSONObject($0.payload) }
            #expect(update?.double("radius") == 400)
            #expect(update?.string("name") == "Depot XL")
            try await h.position("r", north: 300, ts: T + 20)  // outside the old circle, inside the new one
            try await h.position("r", north: 300, ts: T + 22)
            try await h.barrier()
            #expect(h.alerts("r").isEmpty, "still inside: no exit, and no second enter")

            try await h.position("r", north: 600, ts: T + 30)
            try await h.position("r", north: 600, ts: T + 32)
            let alerts = await h.waitForAlerts("r", count: 1)
            #expect(alerts.map(\.event) == ["exit"])
            #expect(alerts.first?.json.double("radius_m") == 400)
            #expect(alerts.first?.json.string("name") == "Depot XL")
            #expect(alerts.first?.seq == 2)
            let retained = try await h.retained("fleetfence/fences/depot")
            #expect(retained.first.flatMap { JSONObject($0.payload) }?.double("radius") == 400)
        }
    }

    @Test func deletingAFenceExitsTheDevicesInside() async throws {
        try await withService { h in
            try await h.position("in", north: 300, ts: T)
            try await h.position("in", north: 100, ts: T + 10)
            try await h.position("in", north: 100, ts: T + 12)  // enter at T+5
            try await h.position("out", north: 300, ts: T)
            await h.waitForAlerts("in", count: 1)

            h.collector.clear()
            try await h.publish("fleetfence/fences/unknown/set", "")  // unknown id: nothing happens
            try await h.publish("fleetfence/fences/depot/set", "")
            let alerts = await h.waitForAlerts("in", count: 1)
            let exit = try #require(alerts.first)
            #expect(exit.topic == "fleetfence/alerts/in/depot/exit")
            #expect(exit.json.string("reason") == "fence_removed")
            #expect(exit.json.keys == ServiceTopicsTests.alertKeys.union(["duration_s", "reason"]), "\(exit)")
            #expect(exit.seq == 2)
            #expect(exit.json.string("name") == "Depot")
            #expect((exit.at ?? 0) >= T + 12, "\(exit)")
            #expect((exit.json.double("duration_s") ?? -1) >= 7, "\(exit)")

            let cleared = await h.waitForMessages("fleetfence/fences/depot")
            #expect(cleared.map(\.payload) == [[]], "an empty message clears the registry entry")
            try await h.barrier()
            #expect(try await h.retained("fleetfence/fences/+").isEmpty, "no retained registry entry left")
            let state = try #require(h.states("in").last)
            #expect(state.strings("inside") == [])
            #expect(state.string("at") == exit.json.string("confirmed_at"), "state at = the exit's time: \(state) \(exit)")
            #expect(near(state.double("lat"), Geo.north(100).lat, tolerance: 1e-9))
            #expect(h.alerts("out").isEmpty)
            #expect(h.errors("fences").isEmpty)

            // Added again, the fence starts unknown: first evidence is silent.
            try await h.publish("fleetfence/fences/depot/set", Fences.circleDefinition(radius: 200))
            try await h.position("in", north: 100, ts: T + 20)
            try await h.position("in", north: 100, ts: T + 22)
            try await h.barrier()
            #expect(h.alerts("in").count == 1, "\(h.alerts("in"))")
            #expect(h.states("in").last?.strings("inside") == ["depot"])
        }
    }

    @Test func invalidDefinitionsAreAnsweredAndChangeNothing() async throws {
        let bowtie = #"{"polygon":[[8.640,49.290],[8.650,49.300],[8.650,49.290],[8.640,49.300]]}"#
        let definitions: [(name: String, id: String, payload: String)] = [
            ("radius 1e999", "depot", #"{"lat":49.293406,"lon":8.641362,"radius":1e999}"#),
            ("lat 91", "depot", #"{"lat":91,"lon":8.641362,"radius":100}"#),
            ("lon 200", "depot", #"{"lat":49.293406,"lon":200,"radius":100}"#),
            ("negative radius", "depot", #"{"lat":49.293406,"lon":8.641362,"radius":-5}"#),
            ("radius as text", "ghost", #"{"lat":49.293406,"lon":8.641362,"radius":"big"}"#),
            ("self-intersecting polygon", "depot", bowtie),
            ("self-intersecting new polygon", "ghost", bowtie),
            ("bad JSON", "depot", #"{"lat":49.29,"lon":"#),
            ("id not matching the topic", "depot", #"{"id":"other","lat":49.293406,"lon":8.641362,"radius":100}"#),
            ("unknown notify event", "depot", #"{"lat":49.293406,"lon":8.641362,"radius":100,"notify":["arrive"]}"#),
            ("no shape", "ghost", #"{"name":"nothing"}"#),
        ]
        try await withService { h in
            try await h.position("v", north: 100, ts: T)  // first sight, inside depot
            try await h.barrier()
            h.collector.clear()
            for definition in definitions {
                try await h.publish("fleetfence/fences/\(definition.id)/set", definition.payload)
            }
            try await h.barrier()

            let answers = h.errors("fences")
            #expect(answers.count == definitions.count, "one answer each: \(answers)")
            for (definition, answer) in zip(definitions, answers) {
                let json = JSONObject(answer.payload)
                #expect(json?.keys == ["error", "topic", "payload"], "\(definition.name): \(answer)")
                #expect(json?.string("error")?.isEmpty == false, "\(definition.name)")
                #expect(json?.string("topic") == "fleetfence/fences/\(definition.id)/set", "\(definition.name)")
                #expect(json?.string("payload") == definition.payload, "\(definition.name)")
            }
            #expect(h.messages("fleetfence/fences/+").isEmpty, "no registry change: \(h.messages("fleetfence/fences/+"))")
            #expect(h.messages("fleetfence/state/+").isEmpty && h.alerts().isEmpty)
            let registry = try await h.retained("fleetfence/fences/+")
            #expect(registry.map(\.topic) == ["fleetfence/fences/depot"])
            #expect(registry.first.flatMap { JSONObject($0.payload) }?.double("radius") == 200)

            // The fence still works as before.
            try await h.position("v", north: 300, ts: T + 10)
            try await h.position("v", north: 300, ts: T + 12)
            let alerts = await h.waitForAlerts("v", count: 1)
            #expect(alerts.map(\.topic) == ["fleetfence/alerts/v/depot/exit"])
            #expect(alerts.first?.json.double("radius_m") == 200)
            #expect(h.service?.isRunning == true)
        }
    }

    @Test func polygonFenceSetAtRunTime() async throws {
        let centre = Geo.north(10_000)
        let dLat = 300 / Geo.metresPerDegree
        let dLon = 300 / (Geo.metresPerDegree * cos(centre.lat * .pi / 180))
        // An open ring, GeoJSON order [lon, lat]: a 600 m square.
        let ring = [
            [centre.lon - dLon, centre.lat - dLat], [centre.lon + dLon, centre.lat - dLat],
            [centre.lon + dLon, centre.lat + dLat], [centre.lon - dLon, centre.lat + dLat],
        ]
        try await withService { h in
            try await h.publish("fleetfence/fences/square/set", Fences.json(["polygon": ring, "name": "Square"]))
            let entry = await h.waitForMessages("fleetfence/fences/square").first.flatMap { JSONObject($0.payload) }
            #expect((entry?.object["polygon"] as? [Any])?.count ?? 0 >= 4, "\(String(describing: entry))")
            #expect(h.errors("fences").isEmpty, "\(h.errors("fences"))")

            try await h.position("p", north: 500, ts: T, of: centre)  // 200 m north of the square
            try await h.position("p", north: 100, ts: T + 10, of: centre)  // 200 m inside its north edge
            try await h.position("p", north: 0, ts: T + 12, of: centre)
            try await h.position("p", north: -500, ts: T + 20, of: centre)  // 200 m south of it
            try await h.position("p", north: -500, ts: T + 22, of: centre)
            let alerts = await h.waitForAlerts("p", count: 2)
            #expect(alerts.map(\.topic) == ["fleetfence/alerts/p/square/enter", "fleetfence/alerts/p/square/exit"])
            #expect(near(alerts.first?.at, T + 5, tolerance: 0.05), "\(alerts)")
            #expect(alerts.first?.json.string("name") == "Square")
            #expect(alerts.first?.json.string("confirmed_at") == rfc3339(T + 12))
            #expect(alerts.map(\.seq) == [1, 2])
        }
    }

    @Test func sighupReloadsTheFencesFile() async throws {
        let goneCentre = Geo.north(10_000)
        let alsoGoneCentre = Geo.north(20_000)
        let freshCentre = Geo.north(15_000)
        var options = HarnessOptions.asProcess  // the real SIGHUP, once
        options.fences = Fences.collection([
            Fences.circle("depot", radius: 200, name: "Depot"),
            Fences.circle("gone", lat: goneCentre.lat, radius: 200, name: "Gone"),
            Fences.circle("also-gone", lat: alsoGoneCentre.lat, radius: 200, name: "Also gone"),
        ])
        try await withService(options) { h in
            try await h.publish("fleetfence/fences/runtime/set", Fences.circleDefinition(lat: 20, lon: 20, radius: 100))
            try await h.position("d1", north: 100, ts: T)  // first sight inside depot
            try await h.position("d2", north: 100, ts: T, of: goneCentre)  // first sight inside gone
            try await h.position("d4", north: 100, ts: T, of: alsoGoneCentre)  // and inside also-gone
            try await h.position("d3", north: 300, ts: T, of: freshCentre)  // outside everything
            try await h.barrier()
            #expect(h.states("d2").last?.strings("inside") == ["gone"])

            try Fences.collection([
                Fences.circle("depot", radius: 250, name: "Depot"),  // changed
                Fences.circle("fresh", lat: freshCentre.lat, radius: 200, name: "Fresh"),  // added
            ]).write(toFile: h.fencesPath, atomically: true, encoding: .utf8)
            h.collector.clear()
            h.service?.hangup()
            await h.waitForMessages("fleetfence/fences/fresh", timeout: .seconds(10))
            let removed = await h.waitForAlerts("d2", count: 1)
            #expect(removed.map(\.topic) == ["fleetfence/alerts/d2/gone/exit"])
            #expect(removed.first?.json.string("reason") == "fence_removed")
            #expect(removed.first?.seq == 1)
            // Both fences the file dropped go in the same reload, each with its exits.
            let alsoRemoved = await h.waitForAlerts("d4", count: 1)
            #expect(alsoRemoved.map(\.topic) == ["fleetfence/alerts/d4/also-gone/exit"])
            try await h.barrier()
            #expect(h.service?.isRunning == true, "SIGHUP does not stop the service")
            #expect(h.states("d2").last?.strings("inside") == [])
            #expect(h.messages("fleetfence/fences/gone").map(\.payload) == [[]])
            #expect(h.messages("fleetfence/fences/also-gone").map(\.payload) == [[]])

            let registry = try await h.retained("fleetfence/fences/+")
            let byTopic = Dictionary(uniqueKeysWithValues: registry.compactMap { m in JSONObject(m.payload).map { (m.topic, $0) } })
            #expect(Set(byTopic.keys) == ["fleetfence/fences/depot", "fleetfence/fences/fresh", "fleetfence/fences/runtime"],
                    "a fence set at run time stays")
            #expect(byTopic["fleetfence/fences/depot"]?.double("radius") == 250)

            // Device state is kept: d1 is still inside depot (no new enter), and leaving it is an exit.
            try await h.position("d1", north: 100, ts: T + 10)
            try await h.position("d1", north: 400, ts: T + 20)
            try await h.position("d1", north: 400, ts: T + 22)
            // The added fence works: unknown to d3 until its first evidence (silent), then debounced.
            try await h.position("d3", north: 300, ts: T + 5, of: freshCentre)
            try await h.position("d3", north: 100, ts: T + 10, of: freshCentre)
            try await h.position("d3", north: 100, ts: T + 12, of: freshCentre)
            try await h.barrier()
            #expect(h.alerts("d1").map(\.topic) == ["fleetfence/alerts/d1/depot/exit"])
            #expect(h.alerts("d1").first?.json.double("radius_m") == 250)
            #expect(h.alerts("d3").map(\.topic) == ["fleetfence/alerts/d3/fresh/enter"])
            #expect(h.errors("fences").isEmpty)
        }
    }

    /// Contract: fences "added, changed or removed there" take effect. A file that did not change a
    /// fence leaves what run time made of it, across reloads and restarts alike.
    /// A file of more fences than a step of applying it has its registry published after it, a
    /// slice at a time: every entry arrives, as held, and the fences judge positions meanwhile.
    @Test func aLargeFileHasItsWholeRegistryPublishedAfterIt() async throws {
        let count = 1_200
        var options = HarnessOptions()
        options.fences = Fences.collection(
            [Fences.circle("depot", radius: 200, name: "Depot")]
                + (1..<count).map { Fences.circle("f\($0)", lat: Geo.north(Double($0) * 1_000).lat, radius: 100, name: "F\($0)") })
        try await withService(options) { h in
            try await h.position("d", north: 100, ts: T)
            try await h.barrier()
            #expect(h.states("d").last?.strings("inside") == ["depot"])
            var registry: [ReceivedMessage] = []
            let deadline = ContinuousClock.now + .seconds(20)
            while registry.count < count, ContinuousClock.now < deadline {
                registry = try await h.retained("fleetfence/fences/+")
            }
            let byTopic = Dictionary(registry.compactMap { m in JSONObject(m.payload).map { (m.topic, $0) } }) { first, _ in first }
            #expect(byTopic.count == count, "every fence's entry")
            #expect(byTopic["fleetfence/fences/f7"]?.string("name") == "F7")
            #expect(byTopic["fleetfence/fences/f7"]?.double("radius") == 100)
            #expect(h.errors("fences").isEmpty)
        }
    }

    @Test func sighupAppliesOnlyWhatChangedInTheFile() async throws {
        let otherCentre = Geo.north(5_000)
        var options = HarnessOptions()
        options.fences = Fences.collection([
            Fences.circle("depot", radius: 200, name: "Depot"),
            Fences.circle("other", lat: otherCentre.lat, radius: 200, name: "Other"),
        ])
        try await withService(options) { h in
            try await h.publish("fleetfence/fences/depot/set", Fences.circleDefinition(radius: 300, name: "Depot (run time)"))
            try await h.publish("fleetfence/fences/other/set", "")
            await h.waitForMessages("fleetfence/fences/other")
            try await h.barrier()

            h.collector.clear()
            h.service?.hangup()  // the file is as it was
            #expect(await eventually { h.serviceLogs.components(separatedBy: "fences loaded").count >= 3 })
            try await h.barrier()
            #expect(h.messages("fleetfence/fences/+").isEmpty, "nothing changed: \(h.messages("fleetfence/fences/+"))")
            var registry = try await h.retained("fleetfence/fences/+")
            #expect(registry.map(\.topic) == ["fleetfence/fences/depot"])
            #expect(registry.first.flatMap { JSONObject($0.payload) }?.double("radius") == 300)

            // A restart reads the same file: still nothing to apply.
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            try await h.barrier()
            registry = try await h.retained("fleetfence/fences/+")
            #expect(registry.map(\.topic) == ["fleetfence/fences/depot"])
            #expect(registry.first.flatMap { JSONObject($0.payload) }?.double("radius") == 300)

            // Now the file changes depot: the file's new version takes effect.
            try Fences.collection([
                Fences.circle("depot", radius: 250, name: "Depot"),
                Fences.circle("other", lat: otherCentre.lat, radius: 200, name: "Other"),
            ]).write(toFile: h.fencesPath, atomically: true, encoding: .utf8)
            h.service?.hangup()
            let changed = try await h.waitForRetained("fleetfence/fences/depot") {
                $0.flatMap { JSONObject($0.payload) }?.double("radius") == 250
            }
            #expect(changed != nil)
            registry = try await h.retained("fleetfence/fences/+")
            #expect(registry.map(\.topic) == ["fleetfence/fences/depot"], "other is unchanged in the file: still deleted")
        }
    }

    /// docs/topics-and-payloads.md "Fences": a file byte for byte the one last applied clean is not
    /// decoded again, at a SIGHUP or a restart; one with a refused feature is, each time, so that
    /// the refusal is reported again.
    @Test func aFileUnchangedSinceItAppliedCleanIsNotDecodedAgain() async throws {
        try await withService { h in
            try await h.barrier()
            let loaded = { h.serviceLogs.split(separator: "\n").filter { $0.contains("fences loaded") } }
            #expect(loaded().last?.contains("unchanged=false") == true, "the first start decodes the file")
            h.service?.hangup()
            #expect(await eventually { loaded().count >= 2 })
            #expect(loaded().last?.contains("unchanged=true") == true, "\(loaded())")
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            try await h.barrier()
            #expect(loaded().count == 3 && loaded().last?.contains("unchanged=true") == true, "a restart on the same file: \(loaded())")
            #expect(try await h.retained("fleetfence/fences/+").map(\.topic) == ["fleetfence/fences/depot"])
            try await h.position("r", north: 300, ts: T)
            try await h.position("r", north: 100, ts: T + 10)
            try await h.position("r", north: 100, ts: T + 12)
            #expect(await h.waitForAlerts("r", count: 1).map(\.topic) == ["fleetfence/alerts/r/depot/enter"], "the fence is in effect")

            // A refused feature: the file is decoded, and the refusal reported, at every reload.
            try Fences.collection([
                Fences.circle("depot", radius: 200, name: "Depot"), Fences.circle("bad", radius: -5),
            ]).write(toFile: h.fencesPath, atomically: true, encoding: .utf8)
            for reload in 1...2 {
                h.service?.hangup()
                #expect(await eventually { loaded().count >= 3 + reload })
                #expect(loaded().last?.contains("unchanged=false") == true, "reload \(reload): \(loaded())")
                #expect(await eventually { h.errors("fences").count == reload }, "\(h.errors("fences"))")
            }
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            try await h.barrier()
            #expect(loaded().count == 6 && loaded().last?.contains("unchanged=false") == true, "\(loaded())")
            #expect(await eventually { h.errors("fences").count == 3 }, "\(h.errors("fences"))")
        }
    }

    /// An entry of the file's record that no longer reads counts as changed, so the digest cannot
    /// vouch for the record: the restart decodes the file and applies that fence again. (The
    /// depot replaced at run time: the file's version is then an entry of its own.)
    @Test func aRecordWithAnUnreadableEntryIsNotTrustedOnTheDigest() async throws {
        try await withService { h in
            try await h.publish("fleetfence/fences/depot/set", Fences.circleDefinition(radius: 300, name: "Depot (run time)"))
            try await h.barrier()
            #expect(await h.service?.terminate() == 0)
            let journal = try SQLiteConnection.open(path: h.journalPath)
            try journal.run("UPDATE file_fences SET definition = x'7B' WHERE id = 'depot'")
            try journal.close()
            try await h.startService()
            try await h.barrier()
            var loaded = h.serviceLogs.split(separator: "\n").filter { $0.contains("fences loaded") }
            #expect(loaded.count == 2 && loaded.last?.contains("unchanged=false") == true, "\(loaded)")
            // The file's version applied again: the depot is the file's, its own entry, and the
            // record whole again, so the next restart takes the digest's word.
            let depot = try await h.waitForRetained("fleetfence/fences/depot") { message in
                message.flatMap { JSONObject($0.payload) }?.double("radius") == 200
            }
            #expect(depot.flatMap { JSONObject($0.payload) }?.double("radius") == 200)
            #expect(await h.service?.terminate() == 0)
            try await h.startService()
            try await h.barrier()
            loaded = h.serviceLogs.split(separator: "\n").filter { $0.contains("fences loaded") }
            #expect(loaded.last?.contains("unchanged=true") == true, "\(loaded)")
        }
    }

    /// The record of the file forgets a fence the file no longer lists: put back unchanged, it
    /// is new to the file and set again.
    @Test func aFenceRemovedFromTheFileAndPutBackIsSetAgain() async throws {
        let otherCentre = Geo.north(5_000)
        let both = Fences.collection([
            Fences.circle("depot", radius: 200, name: "Depot"),
            Fences.circle("other", lat: otherCentre.lat, radius: 200, name: "Other"),
        ])
        var options = HarnessOptions()
        options.fences = both
        try await withService(options) { h in
            try await h.barrier()
            try Fences.collection([Fences.circle("depot", radius: 200, name: "Depot")])
                .write(toFile: h.fencesPath, atomically: true, encoding: .utf8)
            h.service?.hangup()
            #expect(await eventually { h.serviceLogs.components(separatedBy: "fences loaded").count >= 3 })
            try await h.barrier()
            #expect(try await h.retained("fleetfence/fences/+").map(\.topic) == ["fleetfence/fences/depot"])

            try both.write(toFile: h.fencesPath, atomically: true, encoding: .utf8)
            h.service?.hangup()
            #expect(await eventually { h.serviceLogs.components(separatedBy: "fences loaded").count >= 4 })
            try await h.barrier()
            let registry = try await h.retained("fleetfence/fences/+").map(\.topic).sorted()
            #expect(registry == ["fleetfence/fences/depot", "fleetfence/fences/other"], "other is in the file again")
        }
    }

    @Test func sighupWithABrokenFileChangesNothing() async throws {
        try await withService { h in
            try await h.position("k", north: 100, ts: T)  // first sight inside depot
            try await h.barrier()
            try "{ this is not GeoJSON".write(toFile: h.fencesPath, atomically: true, encoding: .utf8)
            h.collector.clear()
            h.service?.hangup()
            #expect(await h.waitForLog("fences not loaded"))
            #expect(h.serviceLogs.contains(": not valid JSON: unexpected character 't' at byte 2 (expected a string key) (line 1, column 3)"))
            // And on the fences' errors topic, as a rejected feature is.
            let answer = try #require(await h.waitForMessages("fleetfence/errors/fences").first.flatMap { JSONObject($0.payload) })
            #expect(answer.string("error")?.hasPrefix("fences not loaded: ") == true, "\(answer.object)")
            #expect(answer.string("error")?.hasPrefix("fences not loaded: not valid JSON: unexpected character 't'") == true)
            #expect(answer.string("topic") == h.fencesPath)
            try await h.barrier()
            #expect(h.alerts().isEmpty && h.messages("fleetfence/fences/+").isEmpty)
            #expect(h.service?.isRunning == true)
            #expect(try await h.retained("fleetfence/fences/+").map(\.topic) == ["fleetfence/fences/depot"])

            try FileManager.default.removeItem(atPath: h.fencesPath)
            h.service?.hangup()
            #expect(await eventually { h.serviceLogs.components(separatedBy: "fences not loaded").count >= 3 })
            #expect(await h.waitForMessages("fleetfence/errors/fences", count: 2).count == 2, "a missing file is answered too")
            try await h.position("k", north: 300, ts: T + 10)
            try await h.position("k", north: 300, ts: T + 12)
            try await h.barrier()
            #expect(h.alerts("k").map(\.topic) == ["fleetfence/alerts/k/depot/exit"], "a missing file changes nothing either")
            #expect(h.alerts("k").first?.json.string("reason") == nil)
        }
    }

    /// Contract: fences changed in the file "take effect as if set at run time", and an invalid
    /// definition "changes nothing": a feature that no longer decodes must not delete its fence.
    @Test func sighupWithAnInvalidFeatureKeepsThatFenceAndSaysWhy() async throws {
        let gateCentre = Geo.north(5_000)
        var options = HarnessOptions()
        options.fences = Fences.collection([
            Fences.circle("depot", radius: 200, name: "Depot"),
            Fences.circle("gate", lat: gateCentre.lat, radius: 100, name: "Gate"),
        ])
        try await withService(options) { h in
            try await h.position("g", north: 0, ts: T, of: gateCentre)  // first sight inside gate
            try await h.position("dd", north: 0, ts: T)  // first sight inside depot
            try await h.barrier()

            var badGate = Fences.circle("gate", lat: gateCentre.lat, radius: 100, name: "Gate")
            badGate["properties"] = ["id": "gate", "name": "Gate", "radius": "one hundred"]
            var badDepot = Fences.circle("depot", radius: 200, name: "Depot")
            badDepot["geometry"] = ["type": "Point", "coordinates": [Geo.lon, 91.0]]
            try Fences.collection([badDepot, badGate]).write(toFile: h.fencesPath, atomically: true, encoding: .utf8)
            h.collector.clear()
            h.service?.hangup()
            #expect(await eventually { h.errors("fences").count >= 2 }, "each bad feature answered: \(h.errors("fences"))")
            try await h.barrier()

            #expect(h.alerts("dd").isEmpty, "depot (lat 91 in the file) is kept: \(h.alerts("dd"))")
            #expect(h.alerts("g").isEmpty, "gate (radius not a number in the file) is kept: \(h.alerts("g"))")
            #expect(h.messages("fleetfence/fences/+").isEmpty, "no registry change: \(h.messages("fleetfence/fences/+"))")
            let registry = try await h.retained("fleetfence/fences/+")
            #expect(Set(registry.map(\.topic)) == ["fleetfence/fences/depot", "fleetfence/fences/gate"])
        }
    }
}
