import FleetFenceTesting
import Foundation
import Testing

/// Rejected positions: each answered on `fleetfence/errors/<device>` with
/// `{"error", "topic", "payload": first 200 bytes}`, while valid traffic keeps flowing.
@Suite("Service end to end: bad input", .timeLimit(.minutes(1)))
struct ServiceBadInputTests {
    static let megabyte: [UInt8] = {
        let head = Array(#"{"lat":49.29,"lon":8.64,"pad":""#.utf8)
        let tail = Array(#""}"#.utf8)
        return head + [UInt8](repeating: UInt8(ascii: "x"), count: (1 << 20) - head.count - tail.count) + tail
    }()

    static let cases: [(name: String, payload: [UInt8])] = [
        ("not JSON", Array("hello, world".utf8)),
        ("empty payload", []),
        ("a JSON array", Array("[49.29, 8.64]".utf8)),
        ("lat of the wrong type", Array(#"{"lat":"49.29","lon":8.64,"ts":1795600000}"#.utf8)),
        ("lon null", Array(#"{"lat":49.29,"lon":null,"ts":1795600000}"#.utf8)),
        ("missing lat", Array(#"{"lon":8.64,"ts":1795600000}"#.utf8)),
        ("lat out of range", Array(#"{"lat":91,"lon":8.64,"ts":1795600000}"#.utf8)),
        ("lon out of range", Array(#"{"lat":49.29,"lon":-180.5,"ts":1795600000}"#.utf8)),
        ("non-finite lat", Array(#"{"lat":1e999,"lon":8.64,"ts":1795600000}"#.utf8)),
        ("non-finite acc", Array(#"{"lat":49.29,"lon":8.64,"acc":-1e999,"ts":1795600000}"#.utf8)),
        ("NaN literal", Array(#"{"lat":NaN,"lon":8.64}"#.utf8)),
        ("negative accuracy", Array(#"{"lat":49.29,"lon":8.64,"acc":-3,"ts":1795600000}"#.utf8)),
        ("ts of the wrong type", Array(#"{"lat":49.29,"lon":8.64,"ts":true}"#.utf8)),
        ("ts not RFC 3339", Array(#"{"lat":49.29,"lon":8.64,"ts":"yesterday"}"#.utf8)),
        ("ts in milliseconds", Array(#"{"lat":49.29,"lon":8.64,"ts":1795600000000000}"#.utf8)),
        ("id not matching the topic", Array(#"{"id":"someone-else","lat":49.29,"lon":8.64,"ts":1795600000}"#.utf8)),
        ("binary junk", [0x00, 0xFF, 0xFE, 0x80, 0x7B, 0x22, 0x6C, 0x01, 0x1B, 0xC3]),
        ("1 MB", megabyte),
        ("deep nesting", [UInt8](repeating: UInt8(ascii: "["), count: 60_000)),
        ("deep objects", Array((String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)).utf8)),
    ]

    /// The first 200 bytes, as the error echoes them (this suite's cuts fall on character boundaries).
    static func echo(_ payload: [UInt8]) -> String {
        String(decoding: payload.prefix(200), as: UTF8.self)
    }

    @Test func everyRejectedMessageIsAnsweredWhileValidTrafficFlows() async throws {
        try await withService { h in
            try await h.position("good", north: 300, ts: T)
            try await h.publish("fleet/good0/position", #"{"lat":\#(Geo.north(300).lat),"lon":\#(Geo.lon),"ts":\#(T)}"#, qos: 0)
            for (index, bad) in Self.cases.enumerated() {
                try await h.publish("fleet/bad-\(index)/position", bad.payload)
                if index == Self.cases.count / 2 {
                    // A matching id is fine.
                    let inside = Geo.north(100)
                    try await h.publish("fleet/good/position", #"{"id":"good","lat":\#(inside.lat),"lon":\#(inside.lon),"ts":\#(T + 10)}"#)
                    try await h.publish("fleet/good0/position", #"{"lat":\#(inside.lat),"lon":\#(inside.lon),"ts":\#(T + 10)}"#, qos: 0)
                }
            }
            try await h.position("good", north: 100, ts: T + 12)
            try await h.publish("fleet/good0/position", #"{"lat":\#(Geo.north(100).lat),"lon":\#(Geo.lon),"ts":\#(T + 12)}"#, qos: 0)
            try await h.barrier(timeout: .seconds(20))

            for (index, bad) in Self.cases.enumerated() {
                let device = "bad-\(index)"
                let answers = h.errors(device)
                #expect(answers.count == 1, "\(bad.name): \(answers.count) answers")
                guard let answer = answers.first else { continue }
                #expect(answer.qos == 0 && !answer.retain, "\(bad.name)")
                let json = JSONObject(answer.payload)
                #expect(json != nil, "\(bad.name): the answer is JSON: \(answer.text.prefix(300))")
                guard let json else { continue }
                #expect(json.keys == ["error", "topic", "payload"], "\(bad.name): \(json)")
                #expect(json.string("error")?.isEmpty == false, "\(bad.name): \(json)")
                #expect(json.string("topic") == "fleet/\(device)/position", "\(bad.name)")
                #expect(json.string("payload") == Self.echo(bad.payload), "\(bad.name): \(json)")
                #expect(h.states(device).isEmpty, "\(bad.name): no state for a rejected message")
            }
            #expect(h.alerts("good").map(\.event) == ["enter"], "valid traffic keeps flowing")
            #expect(h.alerts("good0").map(\.event) == ["enter"], "QoS 0 positions are read too")
            #expect(h.errors("good").isEmpty && h.errors("good0").isEmpty)
            #expect(h.service?.isRunning == true)
        }
    }

    /// `fleet//position` matches the filter but names no device: answered on `<prefix>/errors/`
    /// (the empty device level, which `errors/+` matches), not dropped without a trace.
    @Test func aTopicWithAnEmptyDeviceIsAnswered() async throws {
        try await withService { h in
            try await h.publish("fleet//position", #"{"lat":1,"lon":2}"#)
            try await h.barrier(timeout: .seconds(20))
            let answers = h.errors("")
            #expect(answers.count == 1)
            let json = try #require(answers.first.flatMap { JSONObject($0.payload) })
            #expect(json.string("topic") == "fleet//position")
            #expect(json.string("error")?.contains("device id is empty") == true, "\(json)")
            #expect(await h.waitForLog("device id is empty"), "and in the log")
        }
    }

    @Test func aFloodOfJunkDoesNotStopTheService() async throws {
        try await withService { h in
            try await h.position("after", north: 300, ts: T)
            var generator = SystemRandomNumberGenerator()
            for index in 0..<300 {
                let length = Int.random(in: 0..<400, using: &generator)
                let junk = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                _ = h.publisher.publish(topic: "fleet/junk-\(index % 7)/position", payload: junk, qos: 1)
            }
            #expect(await h.publisher.waitForPublishes(timeout: .seconds(10)))
            try await h.position("after", north: 100, ts: T + 10)
            try await h.position("after", north: 100, ts: T + 12)
            let alerts = await h.waitForAlerts("after", count: 1, timeout: .seconds(15))
            #expect(alerts.map(\.event) == ["enter"])
            #expect(h.service?.isRunning == true)
            let answered = h.messages("fleetfence/errors/+").filter { $0.topic.hasPrefix("fleetfence/errors/junk-") }
            #expect(answered.allSatisfy { JSONObject($0.payload) != nil }, "every answer is valid JSON")
        }
    }
}
