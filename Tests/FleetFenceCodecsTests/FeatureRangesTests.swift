import Foundation
import GeofenceEngine
import SeededRandom
import Testing

@testable import FleetFenceCodecs

/// A fences file's features are parsed apart, each on a core (`FeatureRanges`): the pass that
/// finds them must find exactly the array's elements, give up on anything but the plain case, and
/// never make a file decode, or fail, otherwise than parsed whole.
@Suite struct FeatureRangesTests {
    private func ranges(_ text: String) -> [String]? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { buffer in
            FeatureRanges.find(buffer).map { found in found.elements.map { String(decoding: bytes[$0], as: UTF8.self) } }
        }
    }

    /// The outcome of decoding `text`, as a string: the results or the error.
    private func outcome(_ decode: (Data) throws(FenceDecodingError) -> [Result<FenceDefinition, FenceFeatureError>], _ text: String) -> String {
        do throws(FenceDecodingError) {
            return "\(try decode(Data(text.utf8)))"
        } catch {
            return "error: \(error)"
        }
    }

    private func expectSameAsWhole(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome(FenceDecoder.decodeCollection, text) == outcome(FenceDecoder.decodeWhole, text), sourceLocation: sourceLocation)
    }

    private static let circle = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[8,49]},"properties":{"id":"a","radius":50}}"#

    @Test func findsEachElementWithWhatSurroundsIt() {
        #expect(ranges(#"{"type":"FeatureCollection","features":[1, {"a":[2,3]} ,"x,]"]}"#) == ["1", #" {"a":[2,3]} "#, #""x,]""#])
        #expect(ranges(#"{"features":[]}"#) == [])
        #expect(ranges(#"{"features":[ ]}"#) == [])
        #expect(ranges("{\"features\" :\n [ {} ]}") == [" {} "])
        // Brackets, commas, quotes and backslashes inside strings are text.
        #expect(ranges(#"{"name":"[\"{,","features":[{"id":"\\\"]"},2]}"#) == [#"{"id":"\\\"]"}"#, "2"])
        // Empty elements are the parser's to refuse.
        #expect(ranges(#"{"features":[1,]}"#) == ["1", ""])
        #expect(ranges(#"{"features":[,1]}"#) == ["", "1"])
        // Only the top object's key counts.
        #expect(ranges(#"{"other":{"features":[9]},"features":[1]}"#) == ["1"])
    }

    @Test func leavesAnythingButThePlainCaseToTheWholeParse() {
        #expect(ranges(#"{"feat\u0075res":[1]}"#) == nil)
        #expect(ranges(#"{"features":{}}"#) == nil)
        #expect(ranges(#"{"features":"[1]"}"#) == nil)
        #expect(ranges(#"{"features":[1],"features":[2]}"#) == nil)
        #expect(ranges(#"[{"features":[1]}]"#) == nil)
        #expect(ranges(#"{"type":"FeatureCollection"}"#) == nil)
        #expect(ranges(#"{"features":[1]"#) == nil)
        #expect(ranges(#"{"features":[1]}}"#) == nil)
        #expect(ranges(#"{"features":["unterminated]}"#) == nil)
        let deep = String(repeating: "[", count: FeatureRanges.depthLimit) + String(repeating: "]", count: FeatureRanges.depthLimit)
        #expect(ranges(#"{"features":[\#(deep)]}"#) == nil)
    }

    @Test func decodesEveryFileAsTheWholeParseDoes() {
        let circle = Self.circle
        let files = [
            #"{"type":"FeatureCollection","features":[\#(circle)]}"#,
            #"{"type":"FeatureCollection","features":[]}"#,
            #"{"type":"FeatureCollection","features":[ ]}"#,
            #"{"features":[\#(circle)],"type":"FeatureCollection","name":"depots [east], \"B\""}"#,
            #"{"type":"FeatureCollection","features":[\#(circle),\#(circle)]}"#,
            #"{"type":"FeatureCollection","features":[\#(circle),42,"x",null]}"#,
            // What the whole parse refuses, with its line and column.
            #"{"type":"FeatureCollection","features":[\#(circle),]}"#,
            "{\"type\":\"FeatureCollection\",\n\"features\":[\(circle),\n{\"type\":\"Feature\",}]}",
            #"{"type":"FeatureCollection","features":[\#(circle)]"#,
            #"{"type":"FeatureCollection","features":[\#(circle)]} x"#,
            #"{"type":"FeatureCollection","type":"FeatureCollection","features":[\#(circle)]}"#,
            #"{"type":"FeatureCollection","features":[\#(circle)],"feat\u0075res":[]}"#,
            "\u{FEFF}" + #"{"type":"FeatureCollection","features":[\#(circle)]}"#,
            #"{"type":"Feature","features":[\#(circle)]}"#,
            #"{"features":[\#(circle)]}"#,
            #"{"type":"FeatureCollection","features":[{"a":1,"a":2}]}"#,
            #"{"type":"FeatureCollection","features":[[\#(String(repeating: "[", count: 509))\#(String(repeating: "]", count: 509))]]}"#,
            #"{"type":"FeatureCollection","features":[[\#(String(repeating: "[", count: 510))\#(String(repeating: "]", count: 510))]]}"#,
        ]
        for file in files { expectSameAsWhole(file) }
    }

    /// Files with one byte changed, inserted or removed, anywhere: decoded apart or not, each
    /// decodes, or fails, exactly as parsed whole.
    @Test func decodesMangledFilesAsTheWholeParseDoes() {
        let polygon = #"{"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[8,49],[8.1,49],[8.1,49.1],[8,49]]]},"properties":{"id":"p\"[,","name":"yard {1}"}}"#
        let base = Array(#"{"type":"FeatureCollection","features":[\#(Self.circle), \#(polygon),\#n{"id":"b","lat":1,"lon":2,"radius":9}]}"#.utf8)
        let alphabet = Array(#"{}[],:" \\u0aeFeatures"#.utf8)
        var random = SeededRandom(seed: 27)
        for _ in 0..<2_000 {
            var bytes = base
            let at = Int(random.next() % UInt64(bytes.count))
            let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
            switch random.next() % 3 {
            case 0: bytes[at] = byte
            case 1: bytes.insert(byte, at: at)
            default: bytes.remove(at: at)
            }
            expectSameAsWhole(String(decoding: bytes, as: UTF8.self))
        }
    }
}
