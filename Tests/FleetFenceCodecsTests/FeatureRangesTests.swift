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

    /// Whether `text` is decoded apart, not by the whole parse.
    private func decodedApart(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { FenceDecoder.decodeApart($0) } != nil
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
        // The plain files are decoded apart; the others by the whole parse.
        #expect(files.prefix(6).allSatisfy(decodedApart))
        #expect(!files.dropFirst(6).contains(where: decodedApart))
    }

    /// More features than a chunk of `concurrentMap` (2,000): decoded on every core, in order,
    /// repeated ids and refused features where the whole parse puts them.
    @Test func decodesALargeFileApartAsTheWholeParseDoes() {
        let features = (0..<4_500).map { index in
            switch index % 1_000 {
            case 7: #"{"type":"Feature","geometry":{"type":"Point","coordinates":[8,49]},"properties":{"id":"f3","radius":9}}"#
            case 11: #"{"type":"Feature","geometry":{"type":"Point","coordinates":[8,49]},"properties":{"id":"r\#(index)"}}"#
            default: #"{"type":"Feature","geometry":{"type":"Point","coordinates":[8,\#(49 + Double(index) / 1e4)]},"properties":{"id":"f\#(index)","radius":50}}"#
            }
        }
        let file = #"{"type":"FeatureCollection","features":[\#(features.joined(separator: ",\n"))]}"#
        #expect(decodedApart(file))
        expectSameAsWhole(file)
        let results = (try? FenceDecoder.decodeCollection(Data(file.utf8))) ?? []
        #expect(results.count == 4_500)
        #expect(results.count { if case .failure = $0 { true } else { false } } == 10)
    }

    /// What this build's reader makes of a file of every kind of feature, held to a checksum: when
    /// it changes, a journal's digest of a file (`FencesFileDigest`) no longer says what the file
    /// decodes to, and `FenceFileReader.readingVersion` must be raised with the checksum here.
    @Test func theReadersVersionIsRaisedWhenWhatAFileDecodesToChanges() throws {
        let file = #"""
        {"type":"FeatureCollection","features":[
         {"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[8.6413,49.2931]},
          "properties":{"radius":200.5,"name":"Depot \"A\"","description":"dock, gate 3","notify":["enter","exit","dwell"],
           "dwell_s":600,"devices":["truck-*","van-7"],"speed_limit_kmh":30,"expires_at":"2027-01-01T00:00:00Z","stroke":"#f00"}},
         {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[8,49],[8.01,49],[8.01,49.01],[8,49.01],[8,49]],
          [[8.004,49.004],[8.006,49.004],[8.006,49.006],[8.004,49.004]]]},"properties":{"id":"yard","notify":["exit"]}},
         {"type":"Feature","geometry":{"type":"MultiPolygon","coordinates":[[[[8,49],[8.01,49],[8.01,49.01],[8,49]]],
          [[[8.02,49],[8.03,49],[8.03,49.01],[8.02,49]]]]},"properties":{"id":"twin","name":null}},
         {"type":"Feature","geometry":{"type":"LineString","coordinates":[[8,49],[8.1,49.05],[8.2,49.05]]},
          "properties":{"id":"road","buffer_m":25}},
         {"id":"plain","lat":49.1,"lon":8.7,"radius":1e2},
         {"type":"Feature","geometry":{"type":"Point","coordinates":[8,49]},"properties":{"id":"bad"}},
         {"type":"Feature","geometry":{"type":"Point","coordinates":[8,49]},"properties":{"id":"yard","radius":5}}
        ]}
        """#
        let results = try FenceDecoder.decodeCollection(Data(file.utf8))
        var bytes: [UInt8] = []
        for result in results {
            switch result {
            case let .success(definition): bytes += FenceDefinitionEncoding.encode(definition)
            case let .failure(problem): bytes += Array(problem.description.utf8)
            }
            bytes.append(0)
        }
        // FNV-1a, 64 bits: stable across runs and platforms.
        let checksum = bytes.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
        #expect(results.count { if case .success = $0 { true } else { false } } == 4, "a plain object, a missing radius and a repeated id are refused: \(results)")
        #expect(FenceFileReader.readingVersion == 1 && checksum == 0x3361_C927_3D2A_C5B1, "checksum \(String(checksum, radix: 16)), reading version \(FenceFileReader.readingVersion)")
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
