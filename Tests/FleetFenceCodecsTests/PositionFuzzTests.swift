import Testing
@testable import FleetFenceCodecs
import SeededRandom

/// Seeded random inputs, fast path against the parser. A failure message names the seed and the input,
/// which is all that is needed to replay it.
@Suite("Position decoding: fuzz")
struct PositionFuzzTests {
    static let seeds: [UInt64] = [0x5EED_0001, 0x5EED_0002, 0x5EED_0003, 0x5EED_0004]
    static let iterationsPerSeed = 60_000
    static let generatedPerSeed = 15_000

    static let validPayloads: [[UInt8]] = [
        #"{"lat": 49.293406, "lon": 8.641362, "ts": 1795600000.5, "acc": 8.0, "spd": 13.4, "hdg": 270}"#,
        #"{"lat":49.293406,"lon":8.641362,"ts":"2026-11-22T10:00:05.500Z","id":"truck-7"}"#,
        #"{"latitude":52.3731339,"longitude":4.8903147,"gps_accuracy":12,"battery_level":80,"source_type":"gps"}"#,
        #"{"_type":"location","acc":5,"alt":100,"batt":80,"lat":48.85,"lon":2.35,"tid":"ab","tst":1700000000,"inregions":["home"]}"#,
        #"{"lat":-0.0,"lon":-0,"ts":1e9,"acc":0,"x":[1,-2.5e-3,true,false,null,{"y":"z"}],"o":{}}"#,
        #"{ "lat" : 1E1 , "lon" : -1.5E+2 , "ts" : "2026-11-22T10:00:05+01:00" }"#,
        #"{"lat":90,"lon":-180,"acc":100.25,"id":null,"spd":null,"hdg":359.9}"#,
    ].map { Array($0.utf8) }

    /// The scanner's favourite bytes and near misses for `ByteMutator`.
    static let mutator = ByteMutator(
        interesting: Array(#"{}[]",:.-+eE0123456789tfnu\/ "#.utf8) + [0x09, 0x0A, 0x0D, 0x00, 0x7F, 0x80, 0xC3, 0xFF],
        tokens: [#"{"lat":"#, #""lon":"#, #""acc":"#, #""ts":"#, "-0", "1e400", "01", ",", ",}", "null", "\\u00"])

    @Test(arguments: seeds)
    func mutationsOfValidPayloads(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var tally = FastPathTally(seed: seed)
        for i in 0..<Self.iterationsPerSeed {
            tally.check(Self.mutator.mutate(Self.validPayloads.randomElement(using: &rng)!, using: &rng), iteration: i)
        }
        #expect(tally.failures == 0)
        // Mutations mostly break the JSON, but a good share must still be decided by the scanner.
        #expect(tally.decidedFast > Self.iterationsPerSeed / 10, "only \(tally.decidedFast) decided by the fast path")
    }

    // MARK: Generated payloads

    static let keys: [[UInt8]] = ["lat", "lon", "latitude", "longitude", "ts", "tst", "acc", "gps_accuracy", "spd", "hdg", "id", "_type", "x", "la", "lat2"]
        .map { Array("\"\($0)\"".utf8) }
    static let texts: [[UInt8]] = ["truck-7", "truck-8", "location", "transition", "2026-11-22T10:00:05.500Z", "2026-11-22T10:00:05+01:00", "", "x"]
        .map { Array("\"\($0)\"".utf8) }
    static let literals: [[UInt8]] = ["true", "false", "null"].map { Array($0.utf8) }

    /// Random, mostly valid flat objects: known and unknown keys in any order, values of every kind
    /// written in every way the grammar allows, random whitespace.
    static func generate(_ rng: inout SeededRandom, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        whitespace(&rng, &out)
        out.append(UInt8(ascii: "{"))
        for k in 0..<Int.random(in: 0...7, using: &rng) {
            if k > 0 { out.append(UInt8(ascii: ",")) }
            whitespace(&rng, &out)
            out += keys.randomElement(using: &rng)!
            whitespace(&rng, &out)
            out.append(UInt8(ascii: ":"))
            whitespace(&rng, &out)
            value(&rng, depth: 0, &out)
            whitespace(&rng, &out)
        }
        out.append(UInt8(ascii: "}"))
        whitespace(&rng, &out)
    }

    static func whitespace(_ rng: inout SeededRandom, _ out: inout [UInt8]) {
        guard rng.next() % 4 == 0 else { return }
        for _ in 0..<Int.random(in: 1...3, using: &rng) { out.append([0x20, 0x09, 0x0A, 0x0D][Int(rng.next() % 4)]) }
    }

    static func value(_ rng: inout SeededRandom, depth: Int, _ out: inout [UInt8]) {
        switch rng.next() % 12 {
        case 6: out += texts.randomElement(using: &rng)!
        case 7: out += literals.randomElement(using: &rng)!
        case 8 where depth < 3, 9 where depth < 3:
            let isArray = rng.next() % 2 == 0
            out.append(isArray ? UInt8(ascii: "[") : UInt8(ascii: "{"))
            for i in 0..<Int.random(in: 0...3, using: &rng) {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                if !isArray { out += [UInt8(ascii: "\""), UInt8(ascii: "k"), UInt8(ascii: "0") + UInt8(i), UInt8(ascii: "\""), UInt8(ascii: ":")] }
                value(&rng, depth: depth + 1, &out)
            }
            out.append(isArray ? UInt8(ascii: "]") : UInt8(ascii: "}"))
        default: number(&rng, &out)
        }
    }

    /// Numbers of every shape: integers and decimals of 1 to 20 digits, signs, exponents in both cases.
    static func number(_ rng: inout SeededRandom, _ out: inout [UInt8]) {
        func digits(_ n: Int) { for _ in 0..<n { out.append(UInt8(ascii: "0") + UInt8(rng.next() % 10)) } }
        if rng.next() % 2 == 0 { out.append(UInt8(ascii: "-")) }
        let intDigits = Int.random(in: 1...(rng.next() % 4 == 0 ? 20 : 4), using: &rng)
        // Mostly no leading zero; sometimes one, which JSON refuses.
        out.append(UInt8(ascii: "0") + UInt8(rng.next() % 4 == 0 ? rng.next() % 10 : 1 + rng.next() % 9))
        digits(intDigits - 1)
        if rng.next() % 2 == 0 {
            out.append(UInt8(ascii: "."))
            digits(Int.random(in: 1...(rng.next() % 2 == 0 ? 6 : 18), using: &rng))
        }
        if rng.next() % 4 == 0 {
            out.append(rng.next() % 2 == 0 ? UInt8(ascii: "e") : UInt8(ascii: "E"))
            switch rng.next() % 3 {
            case 0: out.append(UInt8(ascii: "+"))
            case 1: out.append(UInt8(ascii: "-"))
            default: break
            }
            digits(Int.random(in: 1...3, using: &rng))
        }
    }

    @Test(arguments: seeds)
    func generatedPayloads(seed: UInt64) {
        var rng = SeededRandom(seed: seed ^ 0xFACE)
        var tally = FastPathTally(seed: seed)
        var input: [UInt8] = []
        for i in 0..<Self.generatedPerSeed {
            Self.generate(&rng, into: &input)
            tally.check(input, iteration: i)
        }
        #expect(tally.failures == 0)
        #expect(tally.decidedFast > Self.generatedPerSeed / 2, "only \(tally.decidedFast) decided by the fast path")
    }
}

/// One seed's run of fuzz inputs: how many the fast path decided, and how many of those it got wrong.
/// Only what the scanner decides is checked (its deferrals go to the parser anyway), and only against the parser.
struct FastPathTally {
    let seed: UInt64
    var decidedFast = 0
    var failures = 0

    /// Even iterations are read as native payloads, odd ones as OwnTracks; the first five failures are recorded.
    mutating func check(_ input: [UInt8], iteration i: Int) {
        let dialect: Dialect = i % 2 == 0 ? .native : .ownTracks
        guard let fast = withExactBytes(input, { raw in
            dialect == .native ? PositionDecoder.decodeFast(raw, deviceID: testDevice) : PositionDecoder.decodeOwnTracksFast(raw, deviceID: testDevice)
        }) else { return }
        decidedFast += 1
        let reference = input.withUnsafeBytes { raw in
            dialect == .native
                ? PositionDecoder.decodeWithParser(raw, deviceID: testDevice)
                : PositionDecoder.decodeOwnTracksWithParser(raw, deviceID: testDevice)
        }
        if !identical(fast, reference) {
            failures += 1
            if failures <= 5 {
                Issue.record("seed \(seed) iteration \(i) \(dialect): fast=\(fast) reference=\(reference) on \(describe(input))")
            }
        }
    }
}
