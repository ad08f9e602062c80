import Foundation
import GeofenceEngine
import Testing
@testable import FleetFenceCodecs

/// docs/rules.md "Tours": tour definitions in and out, and what is refused.
@Suite("Tour definitions")
struct TourCodecTests {
    private func decode(_ text: String, topic: String? = nil) throws(TourDecodingError) -> TourDefinition {
        try TourDecoder.decodeDefinition(Array(text.utf8), idFromTopic: topic)
    }

    private func error(_ text: String, topic: String? = nil) -> TourDecodingError? {
        do {
            _ = try decode(text, topic: topic)
            return nil
        } catch {
            return error
        }
    }

    @Test func aTourWithEveryKey() throws {
        let tour = try decode(#"{"id":"crawl","name":"Bar crawl","devices":["phone-*"],"stops":["a","b","c"],"ordered":false}"#)
        #expect(tour == TourDefinition(id: "crawl", name: "Bar crawl", devices: ["phone-*"], stops: ["a", "b", "c"], ordered: false))
    }

    @Test func defaultsAndTheTopicsID() throws {
        let tour = try decode(#"{"stops":["depot","c1"]}"#, topic: "round-1")
        #expect(tour == TourDefinition(id: "round-1", stops: ["depot", "c1"]))
        #expect(tour.ordered && tour.devices == ["*"])
    }

    @Test func malformedToursAreRefused() {
        #expect(error(#"{"id":"t"}"#) == .missingField("stops"))
        #expect(error(#"{"stops":["a"]}"#) == .missingField("id"))
        #expect(error(#"{"id":"t","stops":"a"}"#) == .wrongType(field: "stops", expected: "an array of strings", got: "a string"))
        #expect(error(#"{"id":"t","stops":["a",1]}"#) == .wrongType(field: "stops[1]", expected: "a string", got: "a number"))
        #expect(error(#"{"id":"t","stops":["a"],"ordered":"yes"}"#) == .wrongType(field: "ordered", expected: "true or false", got: "a string"))
        #expect(error(#"{"id":"t","stops":["a"],"devices":[true]}"#) == .wrongType(field: "devices[0]", expected: "a string", got: "a boolean"))
        #expect(error(#"{"id":"x","stops":["a"]}"#, topic: "t") == .idMismatch(topic: "t", payload: "x"))
        #expect(error(#"{"id":"B\u00fcs","stops":["a"]}"#, topic: "Bu\u{0308}s") != nil, "another spelling is another id")
        #expect(error(#"{"id":"t/1","stops":["a"]}"#) == .invalidID("t/1"))
        #expect(error(#"{"id":"t","stops":["a","b#"]}"#) == .invalidID("b#"))
        #expect(error("[]") == .notAnObject(found: "an array"))
        #expect(error(#"{"id":"t","stops":["a"],}"#) == .notJSON(detail: "trailing comma at byte 23 (not allowed in JSON)"))
        #expect(throws: TourDecodingError.tooLarge(bytes: TourDecoder.maxDefinitionBytes + 1)) {
            try TourDecoder.decodeDefinition([UInt8](repeating: 32, count: TourDecoder.maxDefinitionBytes + 1), idFromTopic: nil)
        }
    }

    /// No stops, a stop twice, ids over 256 bytes, bad patterns: the engine refuses them.
    @Test func whatTheEngineRefuses() throws {
        let cases: [(String, TourError)] = [
            (#"{"id":"t","stops":[]}"#, .noStops),
            (#"{"id":"t","stops":["a","b","a"]}"#, .duplicateStop("a")),
            (#"{"id":"t","stops":["a",""]}"#, .invalidStop("")),
            (#"{"id":"\#(String(repeating: "t", count: 257))","stops":["a"]}"#, .idTooLong(bytes: 257)),
            (#"{"id":"t","stops":["\#(String(repeating: "s", count: 257))"]}"#, .invalidStop(String(repeating: "s", count: 257))),
            (#"{"id":"t","stops":["a"],"devices":["\#(String(repeating: "*", count: 10_000))"]}"#, .invalidDevices(.patternTooLong(bytes: 10_000, limit: 256))),
        ]
        for (payload, expected) in cases {
            let tour = try decode(payload)
            #expect(throws: expected) { try TourValidation.validate(tour) }
        }
        // Stops that differ only in Unicode normalisation are two fences.
        try TourValidation.validate(TourDefinition(id: "t", stops: ["Bus-M\u{00FC}ller", "Bus-Mu\u{0308}ller"]))
    }

    @Test func theJournalFormWritesEveryKeyAndReadsBack() throws {
        let tour = TourDefinition(id: "r1", name: "Route \"1\"", devices: ["truck-*"], stops: ["depot", "c1", "c2"], ordered: true)
        #expect(String(decoding: TourDefinitionEncoding.encode(tour), as: UTF8.self)
            == #"{"id":"r1","name":"Route \"1\"","devices":["truck-*"],"stops":["depot","c1","c2"],"ordered":true}"#)
        #expect(try TourDecoder.decodeDefinition(TourDefinitionEncoding.encode(tour), idFromTopic: "r1") == tour)
        let bare = TourDefinition(id: "r2", stops: ["x"], ordered: false)
        #expect(try TourDecoder.decodeDefinition(TourDefinitionEncoding.encode(bare), idFromTopic: nil) == bare)
    }
}
