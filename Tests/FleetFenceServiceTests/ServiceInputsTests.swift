import FleetFenceCodecs
import FleetFenceService
import FleetFenceTesting
import Foundation
import Testing

/// Positions from real trackers end to end (docs/trackers.md "Connecting trackers"): each input crosses the
/// depot fence and gets its alert from the same engine, and bad input of each kind is answered
/// with a reason and changes nothing else.
@Suite("Service end to end: tracker inputs", .timeLimit(.minutes(1)))
struct ServiceInputsTests {
    /// A custom format (docs/trackers.md "A custom format"): mappings are only read from the config file.
    static let mappings = """
        inputs:
          mappings:
            - topic: acme/+/gps
              id: topic:2
              lat: /fix/lat
              lon: /fix/lon
              ts: /fix/time
              ts_unit: ms
        """

    static func options() -> HarnessOptions {
        var options = HarnessOptions()
        options.http = .routed
        options[.traccarTopics] = "traccar/positions"
        options.configText = mappings
        return options
    }

    /// A Traccar forward of `device`, `metres` north of the depot, its fixTime with a `+00:00` offset.
    static func traccar(_ device: String, north metres: Double, ts: Double, valid: Bool = true) -> String {
        let point = Geo.north(metres)
        let fixTime = rfc3339(ts).replacingOccurrences(of: "Z", with: "+00:00")
        return #"{"position":{"id":1,"deviceId":3,"valid":\#(valid),"fixTime":"\#(fixTime)","latitude":\#(point.lat),"longitude":\#(point.lon),"speed":0,"course":0,"accuracy":0},"device":{"id":3,"name":"\#(device)","uniqueId":"\#(device)"}}"#
    }

    /// The three samples that make an enter with the harness's 2 s debounce.
    static let crossing: [(metres: Double, offset: Double)] = [(300, 0), (100, 10), (100, 12)]

    @Test func traccarOverMQTTEntersTheFence() async throws {
        try await withService(Self.options()) { h in
            for sample in Self.crossing {
                try await h.publish("traccar/positions", Self.traccar("tr-1", north: sample.metres, ts: T + sample.offset))
            }
            // No fix: ignored, however far away it says it is.
            try await h.publish("traccar/positions", Self.traccar("tr-1", north: 5_000, ts: T + 13, valid: false))
            try await h.publish("traccar/positions", Self.traccar("tr-bad", north: 20_000_000, ts: T))
            try await h.publish("traccar/positions", #"{"position":{"latitude":1,"longitude":2},"device":{"uniqueId":"a/b"}}"#)
            try await h.barrier()
            #expect(h.alerts("tr-1").map(\.event) == ["enter"])
            #expect(h.states("tr-1").last?.strings("inside") == ["depot"], "the invalid fix moved nothing")
            let answer = try #require(h.errors("tr-bad").first.flatMap { JSONObject($0.payload) })
            #expect(answer.string("error")?.hasPrefix(#"field "position.latitude" is"#) == true, "\(answer)")
            #expect(answer.string("topic") == "traccar/positions")
            #expect(h.states("tr-bad").isEmpty)
            // An id that cannot be a topic level is answered on the errors topic of no device.
            let unnamed = try #require(h.errors("").first.flatMap { JSONObject($0.payload) })
            #expect(unnamed.string("error")?.contains("must be one topic level") == true, "\(unnamed)")
        }
    }

    @Test func aMappingOverMQTTEntersTheFence() async throws {
        try await withService(Self.options()) { h in
            for sample in Self.crossing {
                let point = Geo.north(sample.metres)
                try await h.publish(
                    "acme/van-3/gps", #"{"fix":{"lat":"\#(point.lat)","lon":\#(point.lon),"time":\#(Int64((T + sample.offset) * 1000))}}"#)
            }
            try await h.publish("acme/van-bad/gps", #"{"fix":{"lat":1}}"#)
            try await h.barrier()
            #expect(h.alerts("van-3").map(\.event) == ["enter"])
            let answer = try #require(h.errors("van-bad").first.flatMap { JSONObject($0.payload) })
            #expect(answer.string("error") == #"missing field "lon (/fix/lon)""#, "\(answer)")
            #expect(h.states("van-bad").isEmpty)
        }
    }

    @Test func postPositionsTakesABatchAndRejectsBadElementsAlone() async throws {
        try await withRoutedHTTP(Self.options()) { h, http in
            var elements = Self.crossing.map { sample -> String in
                let point = Geo.north(sample.metres)
                return #"{"id":"api-1","lat":\#(point.lat),"lon":\#(point.lon),"ts":\#(T + sample.offset)}"#
            }
            elements.insert(#"{"id":"api-2","lat":95,"lon":8}"#, at: 1)
            elements.append(#"{"lat":1,"lon":2}"#)
            let reply = try await http.request("POST", "/api/positions", body: Data(("[" + elements.joined(separator: ",") + "]").utf8))
            #expect(reply.status == 200, "\(reply)")
            let json = try #require(reply.json)
            #expect(json.int("accepted") == 3 && json.int("late") == 0 && json.int("stale") == 0 && json.int("too_late") == 0)
            let rejected = try #require(json.object["rejected"] as? [[String: Any]])
            #expect(rejected.map { $0["index"] as? Int } == [1, 4])
            #expect(rejected.first?["error"] as? String == #"field "lat" is 95.0, must be within [-90, 90]"#)
            #expect(rejected.last?["error"] as? String == #"missing field "id""#)
            // Answered once journaled and published: the alert is on its way already.
            #expect(await h.waitForAlerts("api-1", count: 1).map(\.event) == ["enter"])

            // A live fix after a gap, then its backlog, a repeat and one past the late window: the
            // answer names each outcome as the metric counts it.
            let point = Geo.north(1_000)
            let backlog = [T + 500, T + 600, T + 590, T + 595, T + 595, T + 600 - 3_601].map { ts in
                #"{"id":"api-3","lat":\#(point.lat),"lon":\#(point.lon),"ts":\#(ts)}"#
            }
            let late = try await http.request("POST", "/api/positions", body: Data(("[" + backlog.joined(separator: ",") + "]").utf8))
            let counts = try #require(late.json)
            #expect(counts.int("accepted") == 4 && counts.int("late") == 2 && counts.int("stale") == 1 && counts.int("too_late") == 1, "\(late)")

            let notJSON = try await http.request("POST", "/api/positions", body: Data("{".utf8))
            #expect(notJSON.status == 400 && notJSON.error?.hasPrefix("payload is not valid JSON") == true, "\(notJSON)")
            let empty = try await http.request("POST", "/api/positions", body: Data())
            #expect(empty.status == 400, "\(empty)")
            let tooLarge = try await http.request("POST", "/api/positions", body: Data(repeating: 0x20, count: (1 << 20) + 1))
            #expect(tooLarge.status == 413)
            #expect(try await http.get("/api/positions").status == 405)
            // Before any barrier, whose own message is a rejection too. A body refused as a whole
            // (not JSON, empty, too large) counts as one rejected message, as over MQTT.
            #expect(await eventuallyAsync {
                (try? await http.get("/metrics"))?.text.contains(#"fleetfence_positions_total{outcome="rejected"} 5"#) == true
            }, "the two bad elements and the three bad bodies are counted")
            try await h.barrier()
            #expect(h.states("api-2").isEmpty && h.errors("api-2").isEmpty, "answered to the caller, not on MQTT")
        }
    }

    @Test func osmAndQueryAndJSONBothEnter() async throws {
        try await withRoutedHTTP(Self.options()) { h, http in
            for sample in Self.crossing {
                let point = Geo.north(sample.metres)
                let reply = try await http.get("/api/osmand?id=phone-q&lat=\(point.lat)&lon=\(point.lon)&timestamp=\(Int(T + sample.offset))&speed=0&batt=80")
                #expect(reply.status == 200 && reply.body.isEmpty, "\(reply)")
            }
            #expect(await h.waitForAlerts("phone-q", count: 1).map(\.event) == ["enter"])

            for sample in Self.crossing {
                let point = Geo.north(sample.metres)
                let body = #"{"location":{"timestamp":"\#(rfc3339(T + sample.offset))","coords":{"latitude":\#(point.lat),"longitude":\#(point.lon),"accuracy":5,"speed":0,"heading":0},"is_moving":true},"device_id":"phone-j"}"#
                let reply = try await http.request("POST", "/api/osmand", body: Data(body.utf8), headers: ["Content-Type": "application/json"])
                #expect(reply.status == 200 && reply.body.isEmpty, "\(reply)")
            }
            #expect(await h.waitForAlerts("phone-j", count: 1).map(\.event) == ["enter"])

            let form = try await http.request(
                "POST", "/api/osmand", body: Data("id=phone-f&lat=1&lon=2&timestamp=\(Int(T))".utf8),
                headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(form.status == 200, "\(form)")

            let bad = try await http.get("/api/osmand?id=phone-bad&lat=91&lon=8")
            #expect(bad.status == 400 && bad.error == #"field "lat" is 91.0, must be within [-90, 90]"#, "\(bad)")
            let slashed = try await http.get("/api/osmand?id=a%2Fb&lat=1&lon=8")
            #expect(slashed.status == 400 && slashed.error?.contains("one topic level") == true, "\(slashed)")
            let badJSON = try await http.request("POST", "/api/osmand", body: Data(#"{"device_id":"phone-bad"}"#.utf8))
            #expect(badJSON.status == 400 && badJSON.error == #"missing field "location""#, "\(badJSON)")
            // Said to be JSON, or looking like it, and broken: answered as broken JSON.
            for (body, headers) in [("nope", ["Content-Type": "application/json"]), ("[1]", [:])] {
                let broken = try await http.request("POST", "/api/osmand", body: Data(body.utf8), headers: headers)
                #expect(broken.status == 400 && broken.error?.contains("deviceid") == false, "\(broken)")
            }
            // An empty body said to be JSON is no body: the query has the position.
            let point = Geo.north(300)
            let queryOnly = try await http.request(
                "POST", "/api/osmand?id=phone-q&lat=\(point.lat)&lon=\(point.lon)&timestamp=\(Int(T))", body: Data(),
                headers: ["Content-Type": "application/json"])
            #expect(queryOnly.status == 200, "\(queryOnly)")
            try await h.barrier()
            #expect(h.states("phone-bad").isEmpty)
            #expect(h.states("phone-f").count == 1, "a form body is read too")
        }
    }

    /// A query or form that does not decode is a position refused like any other: 400 saying
    /// which part and why, and counted `rejected`, as the same bytes over MQTT are.
    @Test func osmAndUndecodableParametersAreRefusedAndCounted() async throws {
        try await withRoutedHTTP(Self.options()) { h, http in
            let notUTF8 = try await http.get("/api/osmand?id=a%FFb&lat=1&lon=1")
            #expect(notUTF8.status == 400 && notUTF8.error == "the query is not UTF-8 once percent-decoded", "\(notUTF8)")
            let badEscape = try await http.get("/api/osmand?id=a%ZZb&lat=1&lon=1")
            #expect(badEscape.status == 400 && badEscape.error == "the query has an invalid percent-encoding", "\(badEscape)")
            let form = try await http.request(
                "POST", "/api/osmand", body: Data("id=a%FFb&lat=1&lon=1".utf8), headers: ["Content-Type": "application/x-www-form-urlencoded"])
            #expect(form.status == 400 && form.error == "the form body is not UTF-8 once percent-decoded", "\(form)")
            // The same endpoint with its path percent-encoded.
            let escapedPath = try await http.get("/api/%6Fsmand?id=a%FFb&lat=1&lon=1")
            #expect(escapedPath.status == 400 && escapedPath.error == "the query is not UTF-8 once percent-decoded", "\(escapedPath)")
            // Elsewhere such a query is refused before any route, and is no position.
            let elsewhere = try await http.get("/api/devices?x=%FF")
            #expect(elsewhere.status == 400 && elsewhere.error == "the query is not UTF-8 once percent-decoded", "\(elsewhere)")
            #expect(await eventuallyAsync {
                (try? await http.get("/metrics"))?.text.contains(#"fleetfence_positions_total{outcome="rejected"} 4"#) == true
            }, "the four refused positions are counted, the devices query not")
        }
    }

    @Test func ownTracksHTTPModeEnters() async throws {
        try await withRoutedHTTP(Self.options()) { h, http in
            let headers = ["X-Limit-U": "alice", "X-Limit-D": "phone", "Content-Type": "application/json"]
            for sample in Self.crossing {
                let point = Geo.north(sample.metres)
                let body = #"{"_type":"location","lat":\#(point.lat),"lon":\#(point.lon),"tst":\#(Int(T + sample.offset)),"acc":5,"tid":"ap"}"#
                let reply = try await http.request("POST", "/api/owntracks", body: Data(body.utf8), headers: headers)
                #expect(reply.status == 200 && reply.text == "[]", "\(reply)")
            }
            #expect(await h.waitForAlerts("alice-phone", count: 1).map(\.event) == ["enter"])

            let other = try await http.request("POST", "/api/owntracks?u=bob&d=tab", body: Data(#"{"_type":"waypoint","desc":"x"}"#.utf8))
            #expect(other.status == 200 && other.text == "[]", "\(other)")
            // Another `_type` names no device to need: answered the same without user and device.
            let anonymous = try await http.request("POST", "/api/owntracks", body: Data(#"{"_type":"waypoint","desc":"x"}"#.utf8))
            #expect(anonymous.status == 200 && anonymous.text == "[]", "\(anonymous)")
            let bad = try await http.request("POST", "/api/owntracks?u=bob&d=tab", body: Data(#"{"_type":"location","lat":1}"#.utf8))
            #expect(bad.status == 400 && bad.error == #"missing field "lon""#, "\(bad)")
            let slashed = try await http.request("POST", "/api/owntracks?u=bob%2Fx&d=tab", body: Data(#"{"_type":"location","lat":1,"lon":2}"#.utf8))
            #expect(slashed.status == 400 && slashed.error?.contains("one topic level") == true, "\(slashed)")
            let nobody = try await http.request("POST", "/api/owntracks", body: Data(#"{"_type":"location","lat":1,"lon":2}"#.utf8))
            #expect(nobody.status == 400 && nobody.error?.contains("X-Limit-U") == true, "\(nobody)")
            // Each refusal counted, the one that names no device too, as over MQTT.
            #expect(await eventuallyAsync {
                (try? await http.get("/metrics"))?.text.contains(#"fleetfence_positions_total{outcome="rejected"} 3"#) == true
            }, "the three refusals are counted")
            try await h.barrier()
            #expect(h.states("bob-tab").isEmpty)
        }
    }
}
