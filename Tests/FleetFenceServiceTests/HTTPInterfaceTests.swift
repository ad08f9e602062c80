import FleetFenceService
import FleetFenceTesting
import Foundation
import Testing

/// The HTTP interface over the real service on the in-memory broker (docs/http.md "The HTTP
/// interface"), its requests routed in-process: every path, its statuses and payloads, writes seen
/// on MQTT and MQTT writes seen over HTTP. What only a socket shows is in ``HTTPSocketTests``.
@Suite("HTTP interface", .timeLimit(.minutes(1)))
struct HTTPInterfaceTests {
    @Test func fencesAreGeoJSONAndAPutIsSeenOnTheRegistry() async throws {
        try await withRoutedHTTP { h, http in
            let list = try await http.get("/api/fences")
            #expect(list.status == 200)
            #expect(list.headers["content-type"]?.hasPrefix("application/json") == true)
            let collection = try #require(list.json)
            #expect(collection.string("type") == "FeatureCollection")
            let features = try #require(collection.object["features"] as? [[String: Any]])
            #expect(features.map { $0["id"] as? String } == ["depot"])
            #expect((features[0]["geometry"] as? [String: Any])?["type"] as? String == "Point")
            #expect((features[0]["properties"] as? [String: Any])?["radius"] as? Double == 200)

            let created = try await http.put("/api/fences/gate", #"{"lat":49.3,"lon":8.65,"radius":5,"name":"Gate"}"#)
            #expect(created.status == 201, "\(created)")
            let properties = try #require(created.json?.object["properties"] as? [String: Any])
            #expect(properties["radius"] as? Double == 20)  // clamped
            #expect(properties["clamped"] as? Bool == true)
            #expect(properties["requested_radius"] as? Double == 5)
            // Through the same path as the set topic: the retained registry entry.
            let entry = try await h.waitForRetained("fleetfence/fences/gate") { $0 != nil }
            #expect(JSONObject(try #require(entry).payload)?.double("radius") == 20)
            let replaced = try await http.put("/api/fences/gate", #"{"id":"gate","lat":49.3,"lon":8.65,"radius":50}"#)
            #expect(replaced.status == 200, "\(replaced)")
            #expect(try await http.get("/api/fences/gate").json?.object["properties"].flatMap { ($0 as? [String: Any])?["radius"] as? Double } == 50)
            #expect(try await http.get("/api/fences/nowhere").status == 404)
        }
    }

    @Test func toursAreSetReadAndDeletedAsOnTheirTopic() async throws {
        try await withRoutedHTTP { h, http in
            let created = try await http.put("/api/tours/route", #"{"name":"Route","stops":["depot","gate"]}"#)
            #expect(created.status == 201, "\(created)")
            #expect(created.json?.strings("stops") == ["depot", "gate"])
            let retained = try await h.waitForRetained("fleetfence/tours/route") { $0 != nil }
            #expect(JSONObject(try #require(retained).payload)?.string("name") == "Route")
            #expect(try await http.put("/api/tours/route", #"{"stops":["gate"]}"#).status == 200)
            let listed = try #require(try await http.get("/api/tours").json?.object["tours"] as? [[String: Any]])
            #expect(listed.map { $0["id"] as? String } == ["route"])
            #expect(try await http.get("/api/tours/route").json?.strings("stops") == ["gate"])
            let invalid = try await http.put("/api/tours/bad", #"{"stops":["a","a"]}"#)
            #expect(invalid.status == 400 && invalid.error?.isEmpty == false, "\(invalid)")
            #expect(try await http.delete("/api/tours/route").status == 204)
            #expect(try await http.get("/api/tours/route").status == 404)
            #expect(try await http.delete("/api/tours/route").status == 404)
        }
    }

    @Test func aSetOnMQTTIsSeenOverHTTP() async throws {
        try await withRoutedHTTP { h, http in
            try await h.publish("fleetfence/fences/yard/set", Fences.circleDefinition(radius: 80, name: "Yard"))
            #expect(await eventuallyAsync { (try? await http.get("/api/fences/yard").status) == 200 })
        }
    }

    @Test func aDeleteExitsTheDevicesInside() async throws {
        try await withRoutedHTTP { h, http in
            try await h.position("truck-7", north: 100, ts: T)  // first sight inside
            try await h.barrier()
            let deleted = try await http.delete("/api/fences/depot")
            #expect(deleted.status == 204, "\(deleted)")
            let exit = try #require(await h.waitForAlerts("truck-7", count: 1).first)
            #expect(exit.event == "exit")
            #expect(exit.json.string("reason") == "fence_removed")
            #expect(try await http.delete("/api/fences/depot").status == 404)
            let remaining = try await http.get("/api/fences").json?.object["features"] as? [Any]
            #expect(remaining?.isEmpty == true)
        }
    }

    @Test func badRequestsGetTheirStatusAndAReasonAndChangeNothing() async throws {
        try await withRoutedHTTP { h, http in
            let cases: [(String, String, String?, Int)] = [
                ("PUT", "/api/fences/x", "{not json", 400),
                ("PUT", "/api/fences/x", #"{"id":"y","lat":49,"lon":8,"radius":50}"#, 400),
                ("PUT", "/api/fences/x", #"{"lat":91,"lon":8,"radius":50}"#, 400),
                ("PUT", "/api/fences/x", "", 400),
                ("GET", "/api/events?limit=-1", nil, 400),
                ("GET", "/api/events?limit=10001", nil, 400),
                ("GET", "/api/events?since=yesterday", nil, 400),
                ("GET", "/api/events?colour=red", nil, 400),
                ("GET", "/api/events?after=nonsense", nil, 400),
                ("GET", "/api/devices?limit=0", nil, 400),
                ("GET", "/api/fences?x=1", nil, 400),
                ("PATCH", "/api/fences/depot", nil, 405),
                ("POST", "/api/events", nil, 405),
                ("GET", "/api/nothing", nil, 404),
                ("GET", "/nothing", nil, 404),
            ]
            for (method, path, body, status) in cases {
                let reply = try await http.request(method, path, body: body.map { Data($0.utf8) })
                #expect(reply.status == status, "\(method) \(path): \(reply)")
                #expect(reply.error?.isEmpty == false, "\(method) \(path): \(reply)")
            }
            let named = try await http.get("/api/events?colour=red")
            #expect(named.error?.contains("colour") == true)
            let tooLarge = try await http.request("PUT", "/api/fences/big", body: Data(repeating: 0x20, count: (1 << 20) + 1))
            #expect(tooLarge.status == 413, "\(tooLarge)")
            // A polygon of a million points is larger than a body may be.
            let points = (0..<1_000_000).map { "[\(8 + Double($0) * 1e-7),49]" }.joined(separator: ",")
            let huge = try await http.put("/api/fences/huge", #"{"polygon":[\#(points)]}"#)
            #expect(huge.status == 413 || huge.status == 400, "\(huge.status)")
            #expect(try await http.get("/api/fences").json.flatMap { ($0.object["features"] as? [Any])?.count } == 1)
        }
    }

    /// The exact bytes of the errors the router and the request's decoding give: a wrong method,
    /// an unknown path, a bad encoding, an unknown query parameter; and ids decoded to their bytes.
    @Test func routingErrorsAndPathsAreAnsweredExactly() async throws {
        try await withRoutedHTTP { _, http in
            let cases: [(method: String, path: String, status: Int, allow: String?, body: String)] = [
                ("PATCH", "/api/fences/depot", 405, "GET, PUT, DELETE", #"{"error":"PATCH is not allowed here; allowed: GET, PUT, DELETE"}"#),
                ("HEAD", "/api/osmand", 405, "GET, POST", #"{"error":"HEAD is not allowed here; allowed: GET, POST"}"#),
                ("GET", "/api/positions", 405, "POST", #"{"error":"GET is not allowed here; allowed: POST"}"#),
                ("DELETE", "/", 405, "GET", #"{"error":"DELETE is not allowed here; allowed: GET"}"#),
                ("PUT", "/api/webhooks/ops/redeliver", 405, "POST", #"{"error":"PUT is not allowed here; allowed: POST"}"#),
                ("GET", "/nothing/deeper", 404, nil, #"{"error":"no such path: /nothing/deeper"}"#),
                ("POST", "/api/fences/a/b", 404, nil, #"{"error":"no such path: /api/fences/a/b"}"#),
                ("GET", "/assets", 404, nil, #"{"error":"no asset "}"#),
                ("GET", "/api/fences/a%2Fb", 404, nil, #"{"error":"no fence a/b"}"#),
                ("GET", "/api/devices/%C3%BC", 404, nil, #"{"error":"no device ü"}"#),
                ("GET", "/api/webhooks/x%2Fy%3F/dead", 404, nil, #"{"error":"no webhook named x/y?"}"#),
                ("GET", "/api/tours/%20%15", 404, nil, #"{"error":"no tour  \u0015"}"#),
                ("GET", "/api/fences/%2e%2E", 404, nil, #"{"error":"no fence .."}"#),
                ("GET", "/api/fences/%zz", 400, nil, #"{"error":"the path has an invalid percent-encoding"}"#),
                ("GET", "/nothing?x=%zz", 400, nil, #"{"error":"the query has an invalid percent-encoding"}"#),
                ("GET", "/api/stream?x=1", 400, nil, #"{"error":"unknown query parameter x (it takes none)"}"#),
                ("GET", "/api/events?colour=red", 400, nil,
                 #"{"error":"unknown query parameter colour (known: after, device, event, fence, format, limit, since, until)"}"#),
                ("GET", "/api/devices?limit=1&limit=2", 400, nil, #"{"error":"query parameter limit is given 2 times"}"#),
            ]
            for (method, path, status, allow, body) in cases {
                let reply = try await http.request(method, path)
                #expect(reply.status == status, "\(method) \(path): \(reply)")
                #expect(reply.headers["allow"] == allow, "\(method) \(path): \(reply.headers)")
                #expect(reply.headers["content-type"] == "application/json; charset=utf-8", "\(method) \(path)")
                #expect(reply.text == body, "\(method) \(path)")
            }
            // A segment is decoded before it is routed, empty ones skipped; HEAD answers as GET.
            let depot = try await http.get("/api/fences/depot")
            #expect(depot.status == 200)
            #expect(try await http.get("/api/%66ences/%64epot").text == depot.text)
            #expect(try await http.get("//api//fences//depot/").text == depot.text)
            let head = try await http.request("HEAD", "/api/fences/depot")
            #expect(head.status == 200 && head.headers["content-type"] == "application/json; charset=utf-8")
        }
    }

    @Test func devicesArePagedInIdOrder() async throws {
        try await withRoutedHTTP { h, http in
            for index in 0..<5 { try await h.position("d\(index)", north: 100, ts: T) }
            try await h.barrier()
            #expect(await eventuallyAsync { (try? await http.get("/api/devices?limit=100").json?.object["devices"] as? [Any])?.count == 5 })
            var seen: [String] = []
            var pageSizes: [Int] = []
            var cursors: [String] = []
            var next: String? = nil
            repeat {
                let page = try await http.get("/api/devices?limit=2" + (next.map { "&after=\($0)" } ?? ""))
                let devices = try #require(page.json?.object["devices"] as? [[String: Any]])
                seen += devices.compactMap { $0["device"] as? String }
                pageSizes.append(devices.count)
                next = page.json?.string("next")
                if let next { cursors.append(next) }
            } while next != nil && pageSizes.count < 10
            // Pages of `limit`, each after the last id of the one before.
            #expect(pageSizes == [2, 2, 1])
            #expect(cursors == ["d1", "d3"])
            #expect(seen == ["d0", "d1", "d2", "d3", "d4"])
            let one = try #require(try await http.get("/api/devices/d3").json)
            #expect(one.strings("inside") == ["depot"])
            #expect(one.keys.isSuperset(of: ["device", "inside", "at", "lat", "lon", "last_seen"]))
            #expect(one.time("last_seen") == T)
            #expect(try await http.get("/api/devices/nobody").status == 404)
        }
    }

    @Test func eventsArePagedToTheEndWithFiltersAndAsCSV() async throws {
        try await withRoutedHTTP { h, http in
            for device in ["a", "b", "c"] {
                try await h.position(device, north: 300, ts: T)
                try await h.position(device, north: 100, ts: T + 10)
                try await h.position(device, north: 100, ts: T + 12)
                try await h.position(device, north: 300, ts: T + 20)
                try await h.position(device, north: 300, ts: T + 23)
                _ = await h.waitForAlerts(device, count: 2)
            }
            var collected: [JSONObject] = []
            var pageSizes: [Int] = []
            var next: String? = nil
            repeat {
                let page = try #require(try await http.get("/api/events?limit=2" + (next.map { "&after=\($0)" } ?? "")).json)
                let events = page.object["events"] as? [[String: Any]] ?? []
                pageSizes.append(events.count)
                collected += events.map { JSONObject(Array(try! JSONSerialization.data(withJSONObject: $0)))! }
                next = page.string("next")
            } while next != nil && pageSizes.count < 10
            #expect(pageSizes.prefix(3) == [2, 2, 2] && pageSizes.dropFirst(3).allSatisfy { $0 == 0 }, "\(pageSizes)")
            #expect(collected.count == 6)
            // Every event once: nothing repeated or skipped at a page's edge.
            #expect(Set(collected.map { "\($0.string("device") ?? "")/\($0.string("event") ?? "")" }).count == 6)
            let times = collected.compactMap { $0.time("at") }
            #expect(times.count == 6 && times == times.sorted())
            // Each exactly as published.
            let raw = try await http.get("/api/events?device=b&event=exit")
            #expect(raw.text.contains(try #require(h.alerts("b").last?.json.text)))
            let filtered = try #require(raw.json?.object["events"] as? [Any])
            #expect(filtered.count == 1)
            let two = try #require(try await http.get("/api/events?device=a&device=c").json?.object["events"] as? [[String: Any]])
            #expect(two.count == 4)
            #expect(Set(two.compactMap { $0["device"] as? String }) == ["a", "c"])
            // The enters fall before T+15, the exits after: each bound keeps its own side.
            let since = try #require(try await http.get("/api/events?since=\(rfc3339(T + 15).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)").json?.object["events"] as? [[String: Any]])
            #expect(since.count == 3 && since.allSatisfy { $0["event"] as? String == "exit" })
            let until = try #require(try await http.get("/api/events?until=\(T + 15)").json?.object["events"] as? [[String: Any]])
            #expect(until.count == 3 && until.allSatisfy { $0["event"] as? String == "enter" })

            let csv = try await http.get("/api/events?format=csv&event=enter")
            #expect(csv.headers["content-type"]?.hasPrefix("text/csv") == true)
            let rows = csv.text.split(separator: "\r\n")
            #expect(rows.first == "event,device,fence,name,at,confirmed_at,lat,lon,seq,dwell_s,duration_s,reason")
            #expect(rows.count == 4)
            #expect(csv.headers["fleetfence-next"] == nil)
            // Paged: the cursor comes as a header, since CSV has no room for it.
            let first = try await http.get("/api/events?format=csv&event=enter&limit=2")
            let cursor = try #require(first.headers["fleetfence-next"])
            let second = try await http.get("/api/events?format=csv&event=enter&limit=2&after=\(cursor)")
            #expect(second.headers["fleetfence-next"] == nil)
            let paged = first.text.split(separator: "\r\n") + second.text.split(separator: "\r\n").dropFirst()
            #expect(paged == rows)
        }
    }

    @Test func healthReadinessMetricsAndTheDocument() async throws {
        var options = HarnessOptions()
        options.brokerPersistence = true
        try await withRoutedHTTP(options) { h, http in
            #expect(try await http.get("/healthz").text == #"{"status":"ok"}"#)
            #expect(try await http.get("/readyz").text == #"{"status":"ready"}"#)
            // One enter: counted, timed, the device and the fence held.
            try await h.position("m", north: 300, ts: T)
            try await h.position("m", north: 100, ts: T + 10)
            try await h.position("m", north: 100, ts: T + 12)
            #expect(await h.waitForAlerts("m", count: 1).map(\.event) == ["enter"])
            #expect(await eventuallyAsync(timeout: .seconds(3)) {
                (try? await http.get("/metrics").text.contains(#"fleetfence_alerts_total{event="enter"} 1"#)) == true
            })
            let metrics = try await http.get("/metrics").text
            for line in [
                #"fleetfence_positions_total{outcome="accepted"} 3"#, "fleetfence_alert_delay_seconds_count 1",
                "fleetfence_devices 1", "fleetfence_fences 1", #"fleetfence_journal_waiting{kind="devices"}"#,
            ] {
                #expect(metrics.split(separator: "\n").contains { $0.hasPrefix(line) }, "\(line) missing:\n\(metrics)")
            }
            for name in [
                "fleetfence_positions_total", "fleetfence_alerts_total", "fleetfence_devices", "fleetfence_fences",
                "fleetfence_mqtt_connected 1", "fleetfence_journal_commit_seconds_bucket", "fleetfence_alert_delay_seconds",
            ] {
                #expect(metrics.contains(name), "\(name) missing")
            }
            let document = try #require(try await http.get("/openapi.json").json)
            #expect(document.string("openapi") == "3.1.0")

            try h.broker.kill()
            #expect(await eventuallyAsync { (try? await http.get("/readyz").status) == 503 })
            let notReady = try #require(try await http.get("/readyz").json)
            #expect(notReady.string("status") == "not ready")
            #expect(notReady.strings("reasons")?.contains { $0.contains("broker") } == true)
            // A fence set while the broker is away: its registry entry waits unacknowledged.
            #expect(try await http.put("/api/fences/gate", #"{"lat":49.3,"lon":8.65,"radius":50}"#).status == 201)
            let waits = { (line: String) in
                await eventuallyAsync(timeout: .seconds(15)) {
                    // Gauges print as doubles: "1.0".
                    (try? await http.get("/metrics").text.split(separator: "\n").contains { $0 == line || $0 == line + ".0" }) == true
                }
            }
            #expect(await waits("fleetfence_mqtt_unacknowledged 1"))
            try h.broker.restart()
            #expect(await eventuallyAsync(timeout: .seconds(15)) { (try? await http.get("/readyz").status) == 200 })
            #expect(await waits("fleetfence_mqtt_unacknowledged 0"))
            #expect(await waits(#"fleetfence_journal_waiting{kind="steps"} 0"#))
        }
    }

    /// `/api/memory` (docs/http.md "Memory"): every part by name, their sum, and the resident size
    /// beside them; the parts grow with the devices.
    @Test func memoryIsCountedByPart() async throws {
        try await withRoutedHTTP { h, http in
            let names: Set = ["engine_devices", "engine_regions", "held_samples", "core", "read_side", "journal_held"]
            func memory() async throws -> (devices: Int, parts: [String: Int], counted: Int, resident: Int) {
                let answer = try await http.get("/api/memory")
                #expect(answer.status == 200, "\(answer)")
                let json = try #require(answer.json)
                let parts = try #require(json.object["parts"] as? [String: Int])
                #expect(Set(parts.keys) == names)
                #expect(json.int("counted") == parts.values.reduce(0, +))
                #expect(json.object["heap_free"] is NSNull)  // only when asked
                return (try #require(json.int("devices")), parts, try #require(json.int("counted")), try #require(json.int("resident")))
            }
            let before = try await memory()
            #expect(before.devices == 0)
            for k in 0..<200 { try await h.position("m\(k)", north: k % 2 == 0 ? 0 : 5_000, ts: T) }
            try await h.barrier()
            #expect(await eventuallyAsync { (try? await memory().devices) == 200 })
            // The read side takes the views once a second.
            #expect(await eventuallyAsync { ((try? await memory().parts["read_side"]) ?? 0) > before.parts["read_side"]! + 200 * 16 })
            let after = try await memory()
            #expect(after.parts["engine_devices"]! > before.parts["engine_devices"]! + 200 * 100)
            // Half of them inside the depot: a region entry each.
            #expect(after.parts["engine_regions"]! > before.parts["engine_regions"]! + 100 * 24)
            #expect(try await http.request("POST", "/api/memory").status == 405)
            let asked = try #require(try await http.get("/api/memory?heap_free=true").json)
            #expect(asked.int("heap_free") != nil)
            #expect(try await http.get("/api/memory?heap_free=yes").status == 400)
        }
    }

    /// A broker whose ACL refuses the position subscription leaves the service connected but
    /// deaf: /readyz says so, and the service asks again until the ACL is fixed.
    @Test func aRefusedSubscriptionIsNotReadyUntilTheBrokerGrantsIt() async throws {
        try await withTemporaryDirectory { directory in
            var options = HarnessOptions()
            options.brokerConfig = try DynamicSecurity.brokerConfig(allowingSubscriptionsTo: ["fleetfence/#"], directory: directory)
            try await withRoutedHTTP(options) { h, http in
                #expect(await eventuallyAsync { (try? await http.get("/readyz").status) == 503 })
                let notReady = try #require(try await http.get("/readyz").json)
                #expect(notReady.strings("reasons")?.contains { $0.contains("refused the subscription to fleet/+/position") } == true,
                        "\(notReady)")

                DynamicSecurity.allowSubscriptions(to: "fleet/#", using: try #require(h.publisher as? MQTTClient))
                #expect(await eventuallyAsync(timeout: .seconds(15)) { (try? await http.get("/readyz").status) == 200 })
                try await h.position("m", north: 500, ts: T)
                try await h.position("m", north: 100, ts: T + 8)
                try await h.position("m", north: 100, ts: T + 10)
                #expect(await h.waitForAlerts("m", count: 1).map(\.event) == ["enter"])
            }
        }
    }

    @Test func theMapAndItsScriptsAreServedByTheServiceItself() async throws {
        try await withRoutedHTTP { h, http in
            let page = try await http.get("/")
            #expect(page.status == 200)
            #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
            // No third-party host: every script and style is the service's own.
            let sources = page.text.matches(of: /(?:src|href)="([^"]+)"/).map { String($0.1) }
            #expect(!sources.isEmpty)
            for source in sources {
                #expect(source.hasPrefix("/"), "\(source) is not served by the service")
                #expect(try await http.get(source).status == 200, "\(source)")
            }
        }
    }
}

/// Writes need the token when one is set, and a loopback listener when none is.
@Suite("HTTP interface: who may write", .timeLimit(.minutes(1)))
struct HTTPWriteGuardTests {
    @Test func aTokenFileGuardsEveryWrite() async throws {
        try await withTemporaryDirectory { directory in
            let tokenFile = directory + "/token"
            try "s3cret\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
            var options = HarnessOptions()
            options.fences = Fences.collection([])
            options[.httpTokenFile] = tokenFile
            try await withRoutedHTTP(options) { _, http in
                let body = #"{"lat":49,"lon":8,"radius":50}"#
                let anonymous = try await http.put("/api/fences/a", body)
                #expect(anonymous.status == 401)
                #expect(anonymous.headers["www-authenticate"] == "Bearer")
                #expect(anonymous.text == #"{"error":"a write needs Authorization: Bearer <token>"}"#)
                #expect(try await http.put("/api/fences/a", body, headers: ["Authorization": "Bearer wrong"]).status == 401)
                #expect(try await http.put("/api/fences/a", body, headers: ["Authorization": "Bearer s3cret"]).status == 201)
                #expect(try await http.delete("/api/fences/a").status == 401)
                #expect(try await http.delete("/api/fences/a", headers: ["Authorization": "Bearer s3cret"]).status == 204)
                // The scheme's name in any case, as HTTP has it; the token exactly.
                #expect(try await http.put("/api/fences/a", body, headers: ["Authorization": "bearer s3cret"]).status == 201)
                #expect(try await http.delete("/api/fences/a", headers: ["Authorization": "BEARER S3CRET"]).status == 401)
                #expect(try await http.delete("/api/fences/a", headers: ["Authorization": "Bearer"]).status == 401)
                #expect(try await http.delete("/api/fences/a", headers: ["Authorization": "bEaReR s3cret"]).status == 204)
                // Positions over HTTP are writes too (docs/trackers.md "Connecting trackers").
                let position = Data(#"{"id":"t1","lat":49,"lon":8}"#.utf8)
                #expect(try await http.request("POST", "/api/positions", body: position).status == 401)
                #expect(try await http.get("/api/osmand?id=t1&lat=49&lon=8").status == 401)
                #expect(try await http.request("POST", "/api/owntracks?u=a&d=b", body: Data(#"{"_type":"location","lat":49,"lon":8}"#.utf8)).status == 401)
                #expect(try await http.request("POST", "/api/webhooks/ops/redeliver").status == 401)
                let signed = try await http.request("POST", "/api/positions", body: position, headers: ["Authorization": "Bearer s3cret"])
                #expect(signed.status == 200 && signed.json?.int("accepted") == 1, "\(signed)")
                // A query parameter the route does not take is a bad request, whoever asks; a
                // wrong method or path is answered before who writes is.
                let unknown = try await http.put("/api/fences/a?colour=red", body)
                #expect(unknown.status == 400 && unknown.error == "unknown query parameter colour (it takes none)", "\(unknown)")
                #expect(try await http.request("POST", "/api/owntracks?x=1", body: Data("{}".utf8)).status == 400)
                #expect(try await http.request("PATCH", "/api/fences/a").status == 405)
                #expect(try await http.request("POST", "/api/nothing").status == 404)
                // Reads need no token.
                #expect(try await http.get("/api/fences").status == 200)
            }
        }
    }

    @Test func withoutATokenOnlyALoopbackListenerTakesWrites() async throws {
        var options = HarnessOptions()
        options.fences = Fences.collection([])
        options[.httpListen] = "0.0.0.0:0"
        try await withRoutedHTTP(options) { _, http in
            let refused = try await http.put("/api/fences/a", #"{"lat":49,"lon":8,"radius":50}"#)
            #expect(refused.status == 403, "\(refused)")
            #expect(refused.error == "writes need http.token_file when the interface listens beyond loopback")
            #expect(try await http.request("POST", "/api/positions", body: Data(#"{"id":"t1","lat":49,"lon":8}"#.utf8)).status == 403)
            #expect(try await http.get("/api/osmand?id=t1&lat=49&lon=8").status == 403)
            #expect(try await http.request("POST", "/api/owntracks?u=a&d=b", body: Data("{}".utf8)).status == 403)
            #expect(try await http.get("/api/fences").status == 200)
        }
    }
}

/// What only a socket shows (docs/http.md "The HTTP interface"): the interface binds port 0 and names
/// the port it got, and the stream reaches a reader over a connection, which a reader that stops
/// reading loses.
@Suite("HTTP interface over a socket", .timeLimit(.minutes(1)))
struct HTTPSocketTests {
    static func options() -> HarnessOptions {
        var options = HarnessOptions()
        options.http = .socket
        return options
    }

    static func service(_ h: ServiceHarness) throws -> InProcessService {
        guard case let .inProcess(service)? = h.service else { throw TestError("in-process expected") }
        return service
    }

    @Test func portZeroIsAFreePortNamedInTheLogAndServed() async throws {
        try await withService(Self.options()) { h in
            let service = try Self.service(h)
            let port = try await #require(service.http).port()
            #expect(port > 0)
            let line = h.serviceLogs.split(separator: "\n").first { $0.contains("http listening") }
            #expect(line?.contains("port=\(port) ") == true && line?.contains("url=http://127.0.0.1:\(port)/") == true, "\(h.serviceLogs)")
            let http = HTTPClient(base: "http://127.0.0.1:\(port)")
            let health = try await http.get("/healthz")
            #expect(health.status == 200 && health.text == #"{"status":"ok"}"#)
            #expect(health.headers["content-type"] == "application/json; charset=utf-8")
            #expect(health.headers["server"] == "fleetfence")
            let missing = try await http.get("/nothing")
            #expect(missing.status == 404 && missing.text == #"{"error":"no such path: /nothing"}"#)
            // Asked again once listening: at once.
            #expect(try await service.http?.port(timeout: .milliseconds(1)) == port)
        }
    }

    @Test func theStreamCarriesAnAlertWithinASecondOfItsPublication() async throws {
        try await withService(Self.options()) { h in
            let port = try await Self.service(h).http!.port()
            let stream = try SSEReader(port: port)
            defer { stream.close() }
            #expect(await eventually { stream.status.withLock { $0 } == 200 })
            try await h.position("truck-7", north: 300, ts: T)
            try await h.position("truck-7", north: 100, ts: T + 10)
            try await h.position("truck-7", north: 100, ts: T + 12)
            let alert = try #require(await h.waitForAlerts("truck-7", count: 1).first)
            let published = ContinuousClock.now
            #expect(await eventually(timeout: .seconds(1)) { stream.received.contains { $0.name == "alert" } }, "\(stream.received) \(stream.raw)")
            #expect(ContinuousClock.now - published < .seconds(1))
            #expect(stream.received.first { $0.name == "alert" }?.data == alert.json.text)
            #expect(stream.received.contains { $0.name == "state" && $0.data.contains(#""device":"truck-7""#) })
            try await h.publish("fleetfence/fences/depot/set", [UInt8]())
            #expect(await eventually { stream.received.contains { $0.name == "fence" && $0.data == #"{"id":"depot","deleted":true}"# } })
        }
    }

    @Test func streamsAreCappedAndASlowReaderIsDropped() async throws {
        try await withService(Self.options()) { h in
            let service = try Self.service(h)
            let port = try await service.http!.port()
            let http = HTTPClient(base: "http://127.0.0.1:\(port)")
            // HEAD answers the stream's headers and takes no slot: each once held one for good.
            for _ in 0...LiveFeed.maxSubscribers {
                let head = try await http.request("HEAD", "/api/stream")
                #expect(head.status == 200 && head.headers["content-type"] == "text/event-stream")
            }
            #expect(service.service.readModel.feed.subscriberCount == 0)
            var readers = try (0..<LiveFeed.maxSubscribers).map { _ in try SSEReader(port: port) }
            #expect(await eventually { service.service.readModel.feed.subscriberCount == LiveFeed.maxSubscribers })
            let refused = try await http.get("/api/stream")
            #expect(refused.status == 503, "\(refused)")
            for reader in readers { reader.close() }
            readers = []
            // A reader that went away is noticed at the next write; the heartbeat makes one.
            #expect(await eventually {
                service.service.readModel.feed.send(.heartbeat)
                return service.service.readModel.feed.subscriberCount == 0
            })

            // A client that never reads: dropped once it falls behind, while positions flow on.
            let stalled = try SSEReader(port: port, reading: false)
            defer { stalled.close() }
            #expect(await eventually { service.service.readModel.feed.subscriberCount == 1 })
            let feed = service.service.readModel.feed
            let bulk = Array(repeating: LiveFeed.Event(name: "state", data: Array(repeating: UInt8(ascii: "x"), count: 200)), count: 1000)
            // Until it is dropped: what the kernel's socket buffers take first (megabytes on
            // loopback) depends on how often the serving task got a turn between the sends, and
            // under a loaded run it took more than one burst's worth.
            for _ in 0..<200 where feed.droppedSubscribers == 0 {
                feed.send(bulk)
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(await eventually { feed.droppedSubscribers == 1 && feed.subscriberCount == 0 })
            try await h.position("still-flowing", north: 100, ts: T)
            try await h.barrier()
        }
    }
}
