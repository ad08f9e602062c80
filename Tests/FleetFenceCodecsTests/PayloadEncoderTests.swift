import Foundation
import GeofenceEngine
import Testing
@testable import FleetFenceCodecs
import SeededRandom

/// Parses with Foundation, as a consumer would.
private func object(_ bytes: [UInt8]) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
}

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// The keys in the order they were written.
private func keyOrder(_ bytes: [UInt8]) -> [String] {
    // Payloads here are flat apart from arrays of strings/numbers, so top-level keys are the `"x":` at depth 1.
    var keys: [String] = []
    var depth = 0
    var i = 0
    var inString = false
    var start = 0
    while i < bytes.count {
        let b = bytes[i]
        if inString {
            if b == UInt8(ascii: "\\") { i += 2; continue }
            if b == UInt8(ascii: "\"") {
                inString = false
                if depth == 1, i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: ":") { keys.append(text(Array(bytes[start..<i]))) }
            }
        } else if b == UInt8(ascii: "\"") {
            inString = true
            start = i + 1
        } else if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
            depth += 1
        } else if b == UInt8(ascii: "}") || b == UInt8(ascii: "]") {
            depth -= 1
        }
        i += 1
    }
    return keys
}

@Suite("Payloads out")
struct PayloadEncoderTests {
    static let contractAlert = Transition(
        event: .enter, device: "truck-7", fenceID: "wdf01", fenceName: "SAP SE WDF01",
        at: RFC3339.parse("2026-11-22T10:00:05.500Z")!, confirmedAt: RFC3339.parse("2026-11-22T10:00:30Z")!,
        lat: 49.2931, lon: 8.6413, radiusMeters: 200, seq: 42
    )

    @Test func contractAlertGolden() {
        #expect(text(AlertPayload.encode(Self.contractAlert)) == #"{"event":"enter","device":"truck-7","fence":"wdf01","name":"SAP SE WDF01","at":"2026-11-22T10:00:05.500Z","confirmed_at":"2026-11-22T10:00:30.000Z","lat":49.2931,"lon":8.6413,"radius_m":200,"seq":42}"#)
    }

    @Test func alertRoundTripsThroughFoundation() throws {
        var t = Self.contractAlert
        t.event = .exit
        t.radiusMeters = 150.5
        t.durationSeconds = 3600.0004
        t.reason = "fence_removed"
        t.seq = UInt64(Int64.max)
        let bytes = AlertPayload.encode(t)
        let o = try object(bytes)
        #expect(o["event"] as? String == "exit")
        #expect(o["device"] as? String == "truck-7")
        #expect(o["fence"] as? String == "wdf01")
        #expect(o["name"] as? String == "SAP SE WDF01")
        #expect(o["at"] as? String == "2026-11-22T10:00:05.500Z")
        #expect(o["confirmed_at"] as? String == "2026-11-22T10:00:30.000Z")
        #expect((o["lat"] as? NSNumber)?.doubleValue == 49.2931)
        #expect((o["lon"] as? NSNumber)?.doubleValue == 8.6413)
        #expect((o["radius_m"] as? NSNumber)?.doubleValue == 150.5)
        #expect((o["seq"] as? NSNumber)?.int64Value == Int64.max)
        #expect((o["duration_s"] as? NSNumber)?.doubleValue == 3600)
        #expect(o["reason"] as? String == "fence_removed")
        #expect(o["dwell_s"] == nil)
        #expect(keyOrder(bytes) == ["event", "device", "fence", "name", "at", "confirmed_at", "lat", "lon", "radius_m", "seq", "duration_s", "reason"])
    }

    @Test func dwellAlertOfAPolygonWithoutName() throws {
        let t = Transition(
            event: .dwell, device: "truck-7", fenceID: "yard", fenceName: nil, at: 1_795_600_000, confirmedAt: 1_795_600_600.25,
            lat: -33.8688, lon: 151.2093, radiusMeters: nil, seq: 7, dwellSeconds: 600.25
        )
        let bytes = AlertPayload.encode(t)
        let o = try object(bytes)
        #expect(o["name"] as? String == "yard")
        #expect(o["radius_m"] == nil)
        #expect((o["dwell_s"] as? NSNumber)?.doubleValue == 600.25)
        #expect(keyOrder(bytes) == ["event", "device", "fence", "name", "at", "confirmed_at", "lat", "lon", "seq", "dwell_s"])
        var empty = t
        empty.fenceName = ""
        #expect(AlertPayload.displayName(empty) == "yard")
    }

    @Test func alertEscapesUserText() throws {
        var t = Self.contractAlert
        t.fenceName = "Depot \"Nord\"\n\\ Ünterführung \u{1}"
        t.device = "trück/7"
        let o = try object(AlertPayload.encode(t))
        #expect(o["name"] as? String == t.fenceName)
        #expect(o["device"] as? String == "trück/7")
    }

    @Test func state() throws {
        let bytes = StatePayload.encode(device: "truck-7", inside: ["yard", "wdf01"], at: 1_795_600_005.5, lat: 49.2931, lon: 8.6413)
        #expect(text(bytes) == #"{"device":"truck-7","inside":["wdf01","yard"],"at":"2026-11-25T09:46:45.500Z","lat":49.2931,"lon":8.6413}"#)
        let o = try object(bytes)
        #expect(o["inside"] as? [String] == ["wdf01", "yard"])
        #expect(text(StatePayload.encode(device: "d", inside: [], at: 0, lat: 0, lon: -0.0)) == #"{"device":"d","inside":[],"at":"1970-01-01T00:00:00.000Z","lat":0,"lon":0}"#)
    }

    @Test func registryCircleClamped() throws {
        let d = FenceDefinition(id: "tiny", name: "Tiny", shape: .circle(center: Coordinate(lat: 49.2931, lon: 8.6413), radius: 5))
        let bytes = FenceRegistryPayload.encode(definition: d, effectiveRadius: 20, requestedRadius: 5, clamped: true)
        #expect(text(bytes) == #"{"id":"tiny","name":"Tiny","lat":49.2931,"lon":8.6413,"radius":20,"notify":["enter","exit"],"devices":["*"],"clamped":true,"requested_radius":5}"#)
        let o = try object(bytes)
        #expect(o["clamped"] as? Bool == true)
        #expect(o["description"] == nil && o["dwell_s"] == nil && o["polygon"] == nil)
        // Not clamped: no "clamped" key at all.
        let plain = FenceRegistryPayload.encode(definition: d, effectiveRadius: 5, requestedRadius: nil, clamped: false)
        #expect(text(plain) == #"{"id":"tiny","name":"Tiny","lat":49.2931,"lon":8.6413,"radius":5,"notify":["enter","exit"],"devices":["*"]}"#)
    }

    @Test func registryPolygonWithDwell() throws {
        let d = FenceDefinition(
            id: "yard", description: "back lot", shape: .polygon([Coordinate(lat: 49, lon: 8), Coordinate(lat: 49, lon: 8.1), Coordinate(lat: 49.1, lon: 8.05)]),
            dwellSeconds: 300
        )
        let bytes = FenceRegistryPayload.encode(definition: d, effectiveRadius: nil, requestedRadius: nil, clamped: false)
        #expect(text(bytes) == #"{"id":"yard","description":"back lot","polygon":[[8,49],[8.1,49],[8.05,49.1]],"notify":["enter","exit","dwell"],"dwell_s":300,"devices":["*"]}"#)
        #expect(keyOrder(bytes) == ["id", "description", "polygon", "notify", "dwell_s", "devices"])
    }

    @Test func errorPayload() throws {
        let bytes = ErrorPayload.encode(reason: "missing field \"lat\"", topic: "fleet/truck-7/position", payload: Array(#"{"lon":2}"#.utf8))
        #expect(text(bytes) == #"{"error":"missing field \"lat\"","topic":"fleet/truck-7/position","payload":"{\"lon\":2}"}"#)
    }

    @Test func errorPayloadSurvivesBinaryJunk() throws {
        var rng = SeededRandom(seed: 200)
        for length in [0, 1, 199, 200, 201, 1000] {
            for _ in 0..<200 {
                let junk = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
                let bytes = ErrorPayload.encode(reason: "not JSON", topic: "fleet/x/position", payload: junk)
                let o = try object(bytes)
                let echoed = try #require(o["payload"] as? String)
                #expect(echoed.utf8.count <= 3 * ErrorPayload.payloadPrefixBytes)
                #expect(String(decoding: junk.prefix(200), as: UTF8.self).hasPrefix(echoed) || echoed.unicodeScalars.count <= 200)
            }
        }
    }

    @Test func errorPayloadCutsOnACharacterBoundary() throws {
        // 199 ASCII bytes and then "€" (3 bytes): the 200-byte cut falls inside it, so it is dropped whole.
        let payload = [UInt8](repeating: UInt8(ascii: "a"), count: 199) + Array("€€".utf8)
        let echoed = try #require(try object(ErrorPayload.encode(reason: "r", topic: "t", payload: payload))["payload"] as? String)
        #expect(echoed == String(repeating: "a", count: 199))
        // A complete character right at the limit is kept.
        let exact = [UInt8](repeating: UInt8(ascii: "a"), count: 197) + Array("€€".utf8)
        #expect(try object(ErrorPayload.encode(reason: "r", topic: "t", payload: exact))["payload"] as? String == String(repeating: "a", count: 197) + "€")
        // Invalid bytes inside the prefix are shown as U+FFFD, never passed through.
        let bad: [UInt8] = [0x41, 0xFF, 0x42, 0x00]
        #expect(try object(ErrorPayload.encode(reason: "r", topic: "t", payload: bad))["payload"] as? String == "A\u{FFFD}B\u{0}")
    }
}

@Suite("JSONWriter")
struct JSONWriterTests {
    private func number(_ x: Double) -> String {
        var bytes: [UInt8] = []
        JSONWriter.appendNumber(x, to: &bytes)
        return text(bytes)
    }

    @Test func numbers() {
        #expect(number(200) == "200")
        #expect(number(-200) == "-200")
        #expect(number(-0.0) == "0")
        #expect(number(49.2931) == "49.2931")
        #expect(number(0.1) == "0.1")
        #expect(number(1e-5) == "1e-05")
        #expect(number(9_007_199_254_740_991) == "9007199254740991")
        #expect(number(9_007_199_254_740_992) == "9007199254740992.0")  // from 2^53 on: Swift's shortest text
        #expect(number(1e300) == "1e+300")
        #expect(number(.nan) == "null")
        #expect(number(.infinity) == "null")
        #expect(number(.leastNonzeroMagnitude) == "5e-324")
    }

    @Test func everyFiniteNumberRoundTripsThroughFoundation() throws {
        var rng = SeededRandom(seed: 42)
        for _ in 0..<20_000 {
            let x: Double
            switch rng.next() % 3 {
            case 0: x = Double(bitPattern: rng.next())
            case 1: x = Double.random(in: -180...180, using: &rng)
            default: x = Double(Int64.random(in: -1_000_000...1_000_000, using: &rng)) / 1000
            }
            guard x.isFinite else { continue }
            var json = JSONWriter()
            json.beginArray()
            json.number(x)
            json.endArray()
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [NSNumber])
            // Foundation's own reading of long numbers (Decimal) is not exact; Swift's Double(String) is.
            let back = Double(text(Array(json.bytes.dropFirst().dropLast())))
            #expect(back == x, "\(x) -> \(text(json.bytes))")
            #expect(parsed.count == 1)
        }
    }

    @Test func integers() {
        var json = JSONWriter()
        json.beginArray()
        json.integer(Int64.min)
        json.integer(Int64(0))
        json.integer(UInt64.max)
        json.endArray()
        #expect(text(json.bytes) == "[-9223372036854775808,0,18446744073709551615]")
    }

    @Test func commasAndNesting() {
        var json = JSONWriter()
        json.beginObject()
        json.key("a")
        json.beginArray()
        json.beginArray()
        json.endArray()
        json.beginObject()
        json.endObject()
        json.null()
        json.bool(false)
        json.endArray()
        json.key("b")
        json.beginObject()
        json.key("c")
        json.bool(true)
        json.key("d")
        json.time(0)
        json.endObject()
        json.key("e\"")
        json.string("")
        json.endObject()
        #expect(text(json.bytes) == #"{"a":[[],{},null,false],"b":{"c":true,"d":"1970-01-01T00:00:00.000Z"},"e\"":""}"#)
    }

    @Test func escaping() {
        var json = JSONWriter()
        json.string("\"\\/\u{8}\u{C}\n\r\t\u{0}\u{1F}\u{7F}é€😀\u{2028}")
        #expect(text(json.bytes) == #""\"\\/\b\f\n\r\t\u0000\u001f"# + "\u{7F}é€😀\u{2028}\"")
    }

    @Test func randomStringsRoundTripThroughFoundation() throws {
        var rng = SeededRandom(seed: 7)
        // No U+FEFF: Foundation on Linux drops it at the start of a string and right after an escape.
        let pool: [Unicode.Scalar] = (0...0x7F).compactMap(Unicode.Scalar.init) + ["é", "€", "😀", "\u{2028}", "\u{10FFFF}"]
        for _ in 0..<3000 {
            var s = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...40, using: &rng) { s.append(pool.randomElement(using: &rng)!) }
            let original = String(s)
            var json = JSONWriter()
            json.beginArray()
            json.string(original)
            json.endArray()
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String])
            #expect(parsed == [original])
            #expect(parsed.first?.unicodeScalars.elementsEqual(original.unicodeScalars) == true)
        }
    }
}
