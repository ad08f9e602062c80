import Foundation
import Testing
@testable import FleetFenceCodecs

/// Hand-written inputs on which the scanner and `JSONSerialization` could plausibly part ways.
@Suite("Position decoding: fast path equals the parser")
struct PositionEquivalenceTests {
    static let corpus: [String] = {
        var c: [String] = []
        // Numbers in every form, as the value of a field that matters.
        let numbers = [
            "0", "-0", "0.0", "-0.0", "1", "-1", "49", "49.0", "49.", ".5", "-.5", "0.5", "00", "01", "-01", "1e2", "1E2",
            "1e+2", "1E+2", "1e-2", "-1e-2", "1e", "1e+", "1.e2", "1.5e", "0e0", "-0e0", "0e400", "1e400", "-1e400",
            "1e-400", "1e308", "1.7976931348623157e308", "1.7976931348623159e308", "4.9e-324", "2.5e-324", "1e22",
            "1e23", "9007199254740992", "9007199254740993", "-9007199254740993", "12345678901234567",
            "123456789012345678", "12345678901234567890", "99999999999999999999", "49.293406123456789",
            "49.29340612345678", "4.929340612345678", "0.1000000000000000055511151231257827", "-122.41941550000001",
            "8.641362", "1795600000.5", "1795600000.123", "1795600000.1234567", "89.99999999999999", "90.00000000000001",
            "-90", "90", "180", "-180", "180.0000000000001", "0.000001", "1e-7", "123e-20", "1.5E-5", "2e0",
            "NaN", "Infinity", "-Infinity", "+1", "--1", "1.2.3", "1e5e5", "0x10", "1_000", "١", "1 2", "true", "false",
            "null", "\"49\"", "[]", "{}", "[49]", "{\"v\":49}",
        ]
        for n in numbers {
            c.append(#"{"lat":\#(n),"lon":8.6}"#)
            c.append(#"{"lat":49.2,"lon":8.6,"acc":\#(n)}"#)
            c.append(#"{"lat":49.2,"lon":8.6,"ts":\#(n)}"#)
            c.append(#"{"lat":49.2,"lon":8.6,"other":\#(n)}"#)
            c.append(#"{"_type":"location","lat":49.2,"lon":8.6,"tst":\#(n)}"#)
            c.append(#"{"lat":49.2,"lon":\#(n)}"#)
        }
        // Structure and whitespace.
        c += [
            "", " ", "{", "}", "{}", " {} ", "{ }", "[]", "null", "true", "1", "\"s\"", "{\"lat\":1,\"lon\":2}",
            " \t\r\n{ \t\r\n\"lat\" \t\r\n: \t\r\n1 \t\r\n, \t\r\n\"lon\" \t\r\n: \t\r\n2 \t\r\n} \t\r\n",
            "{\"lat\":1,\"lon\":2}\u{0C}", "{\"lat\":1,\"lon\":2}\u{0B}", "{\"lat\":1,\"lon\":2}\u{A0}",
            "{\"lat\":1,\"lon\":2,}", "{\"lat\":1,,\"lon\":2}", "{,\"lat\":1,\"lon\":2}", "{\"lat\":1 \"lon\":2}",
            "{\"lat\":1,\"lon\":2}}", "{\"lat\":1,\"lon\":2}x", "{\"lat\":1,\"lon\":2} {}", "{\"lat\":1,\"lon\":2}\0",
            "{\"lat\" 1,\"lon\":2}", "{\"lat\"::1,\"lon\":2}", "{lat:1,lon:2}", "{'lat':1,'lon':2}",
            "{\"lat\":1,\"lon\":2", "{\"lat\":1,\"lon\":", "{\"lat\":1,\"lon\"", "{\"lat\":1,\"lo", "{\"lat\":1,",
            "\u{FEFF}{\"lat\":1,\"lon\":2}", "{\"lat\":1,\"lon\":2}\u{FEFF}",
            "{\"lat\":1,\"lon\":2,\"x\":[1,2,]}", "{\"lat\":1,\"lon\":2,\"x\":[,]}", "{\"lat\":1,\"lon\":2,\"x\":{\"a\":1,}}",
            "{\"lat\":1,\"lon\":2,\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
            "{\"lat\":1,\"lon\":2,\"x\":[[[[1]]]}", "{\"lat\":1,\"lon\":2,\"x\":[[[[1]]]]]}", "{\"lat\":1,\"lon\":2,\"x\":{\"a\":{\"b\":{}}}}",
            "{\"lat\":1,\"lon\":2,\"x\":[true,false,null,\"s\",1.5,{}]}", "{\"lat\":1,\"lon\":2,\"x\":tru}",
            "{\"lat\":1,\"lon\":2,\"x\":truex}", "{\"lat\":1,\"lon\":2,\"x\":nul}", "{\"lat\":1,\"lon\":2,\"x\":True}",
            "{\"lat\":1,\"lon\":2,\"x\":{1:2}}", "{\"lat\":1,\"lon\":2,\"x\":[1 2]}",
        ]
        // Strings: escapes, unicode, control characters, invalid UTF-8 (spliced in below as bytes).
        let strings = [
            #""truck-7""#, #""truck\u002d7""#, #""truck\-7""#, #""tr\"uck""#, #""truck-7\n""#, #""\ud83d\ude9a""#,
            #""\ud83d""#, #""\ude9a""#, #""\u00""#, #""\uZZZZ""#, "\"tab\there\"", "\"nl\nhere\"", "\"é\"",
            "\"\u{1F69A}\"", #""""#, #""\\""#, #""\/""#, #""2026-11-22T10:00:05.500Z""#, #""2026-11-22T10:00:05\u002e500Z""#,
            #""2026-02-30T10:00:00Z""#, #""2026-11-22T10:00:05.500+01:00""#, "\"2026-11-22T10:00:05Z\u{0}\"",
        ]
        for s in strings {
            c.append(#"{"lat":1,"lon":2,"id":\#(s)}"#)
            c.append(#"{"lat":1,"lon":2,"ts":\#(s)}"#)
            c.append(#"{"lat":1,"lon":2,"name":\#(s)}"#)
            c.append(#"{"lat":1,"lon":2,\#(s):5}"#)
            c.append(#"{"_type":\#(s),"lat":1,"lon":2}"#)
        }
        // Keys written with escapes or near misses; duplicates in every order.
        c += [
            #"{"l\u0061t":1,"lon":2}"#, #"{"lat ":1,"lon":2}"#, #"{"LAT":1,"lon":2}"#, #"{"la":1,"lon":2}"#,
            #"{"lat":1,"lat":2,"lon":3}"#, #"{"lat":1,"lon":2,"lat":"x"}"#, #"{"lat":"x","lon":2,"lat":1}"#,
            #"{"latitude":1,"lat":2,"lon":3,"latitude":"x"}"#, #"{"gps_accuracy":-1,"lat":1,"lon":2,"acc":1}"#,
            #"{"lat":1,"lon":2,"id":"truck-7","id":"x"}"#, #"{"lat":1,"lon":2,"id":"x","id":"truck-7"}"#,
            #"{"_type":"location","_type":"lwt","lat":1,"lon":2}"#, #"{"_type":"lwt","_type":"location","lat":1,"lon":2}"#,
            #"{"_typ":"location","lat":1,"lon":2}"#, #"{"tst":5,"ts":"x","lat":1,"lon":2}"#,
            // Repeated keys the scanner does not read, at the top and nested; keys equal only once unescaped or
            // as Swift strings; objects around the scanner's 32 keys.
            #"{"lat":1,"lon":2,"x":1,"x":1}"#, #"{"x":1,"lat":1,"x":2,"lon":2}"#, #"{"lat":1,"lon":2,"":1,"":2}"#,
            #"{"lat":1,"lon":2,"o":{"a":1,"a":1}}"#, #"{"lat":1,"lon":2,"o":[{"a":1},{"a":1}]}"#,
            #"{"lat":1,"lon":2,"o":{"a":{"a":{"a":1}}}}"#, #"{"lat":1,"lon":2,"o":{"ab":1,"ba":1,"aab":1,"abb":1}}"#,
            #"{"lat":1,"lon":2,"lat":1}"#, #"{"lat":1,"lon":2,"l\u0061t":1}"#, #"{"lat":1,"lon":2,"\u00e9":1,"é":1}"#,
            "{\"lat\":1,\"lon\":2,\"é\":1,\"e\u{301}\":1}", "{\"lat\":1,\"lon\":2,\"\u{212A}\":1,\"K\":1}",
            #"{"lat":1,"lon":2,"ts":1,"tst":1,"latitude":1,"longitude":1,"acc":1,"gps_accuracy":1,"spd":1,"hdg":1,"id":"truck-7","_type":"location"}"#,
        ]
        for n in [30, 31, 32, 33, 40] {
            let members = (0..<n - 2).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
            c.append(#"{"lat":1,"lon":2,\#(members)}"#)
            c.append(#"{"lat":1,"lon":2,\#(members),"k0":0}"#)
            c.append(#"{"lat":1,"lon":2,"o":{\#(members)}}"#)
            c.append(#"{"lat":1,"lon":2,"o":{\#(members),"k5":5}}"#)
        }
        return c
    }()

    /// Byte-level oddities that cannot be written as Swift string literals.
    static let binaryCorpus: [[UInt8]] = {
        let base = Array(#"{"lat":1,"lon":2,"id":"truck-7"}"#.utf8)
        var c: [[UInt8]] = []
        for junk: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82], [0xF4, 0x90, 0x80, 0x80], [0x80], [0x00], [0x7F]] {
            var s = base
            s.insert(contentsOf: junk, at: 24)  // inside the id string
            c.append(s)
            var k = base
            k.insert(contentsOf: junk, at: 2)  // inside the first key
            c.append(k)
            c.append(base + junk)
            c.append(junk + base)
        }
        c.append(Array(#"{"lat":1,"lon":2}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        c.append([0xFF, 0xFE] + Array(#"{"lat":1,"lon":2}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        c.append(Array(#"{"lat":1,"lon":2}"#.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        c.append([0xEF, 0xBB, 0xBF] + base)
        return c
    }()

    @Test func handWrittenCorpus() {
        var decidedFast = 0
        for text in Self.corpus {
            for dialect in Dialect.allCases {
                let a = answers(Array(text), dialect: dialect)
                #expect(a.agree, "\(dialect): fast=\(String(describing: a.fast)) reference=\(a.reference) on \(describe(Array(text)))")
                if a.fast != nil { decidedFast += 1 }
            }
        }
        // The corpus is built around valid payloads: most of them must not need the parser.
        #expect(decidedFast > Self.corpus.count / 2)
    }

    @Test func binaryCorpus() {
        for bytes in Self.binaryCorpus {
            for dialect in Dialect.allCases {
                let a = answers(bytes, dialect: dialect)
                #expect(a.agree, "\(dialect): fast=\(String(describing: a.fast)) reference=\(a.reference) on \(describe(bytes))")
            }
        }
    }

    /// Every prefix of a few payloads: truncation at each byte.
    @Test func everyTruncation() {
        let payloads = [
            #"{"lat": 49.293406, "lon": 8.641362, "ts": 1795600000.5, "acc": 8.0, "spd": 13.4, "hdg": 270, "id": "truck-7"}"#,
            #"{"latitude":-33.5e1,"longitude":1E2,"x":[true,false,null,{"y":[]}],"ts":"2026-11-22T10:00:05.500+01:00"}"#,
            #"{"_type":"location","lat":-0.0,"lon":-0,"tst":1700000000,"acc":0}"#,
        ]
        for text in payloads {
            let bytes = Array(text.utf8)
            for n in 0...bytes.count {
                for dialect in Dialect.allCases {
                    let a = answers(Array(bytes[..<n]), dialect: dialect)
                    #expect(a.agree, "\(dialect) prefix \(n) of \(text)")
                }
            }
        }
    }

    /// docs/topics-and-payloads.md "Fences": the scanner leaves every repeated key to the parser, which refuses it; an object of up
    /// to 32 distinct keys stays on the fast path.
    @Test func repeatedKeysGoToTheParser() throws {
        let repeated = [
            #"{"lat":1,"lon":2,"lat":1}"#, #"{"lat":1,"lon":2,"x":1,"x":1}"#, #"{"lat":1,"lon":2,"o":{"a":1,"a":1}}"#,
            #"{"lat":1,"lon":2,"o":[{"b":[{"a":1,"a":1}]}]}"#, #"{"_type":"location","lat":1,"lon":2,"_type":"location"}"#,
        ]
        for text in repeated {
            for dialect in Dialect.allCases {
                let a = answers(Array(text.utf8), dialect: dialect)
                #expect(a.fast == nil, "\(text)")
                guard case let .failure(.notJSON(detail)) = a.reference else {
                    Issue.record("\(text): \(a.reference)")
                    continue
                }
                #expect(detail.hasPrefix("duplicate key"), "\(text)")
            }
        }
        let members = (0..<30).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        for text in [#"{"lat":1,"lon":2,\#(members)}"#, #"{"lat":1,"lon":2,"o":{"lat":1,"lon":2,\#(members)}}"#] {
            let a = answers(Array(text.utf8), dialect: .native)
            #expect(a.fast != nil && a.agree, "\(text)")
        }
        #expect(answers(Array(#"{"lat":1,"lon":2,"k30":0,\#(members)}"#.utf8), dialect: .native).fast == nil)
    }

    @Test func signOfZero() throws {
        // "-0" and "-0.0" are both -0.0, in the scanner as in the parser.
        let zeros = answers(Array(#"{"lat":-0,"lon":-0.0}"#), dialect: .native)
        #expect(zeros.agree)
        let p = try #require(try? zeros.reference.get())
        #expect(p.lat.sign == .minus && p.lon.sign == .minus)
        #expect(zeros.fast != nil)
    }

    /// 17 significant digits (as some phones send coordinates) and more than 19 (past a 64-bit
    /// mantissa) stay on the fast path and round as the parser does.
    @Test func longNumbersStayOnTheFastPath() throws {
        // 18446744073709551621e-18: 20 digits whose mantissa wraps to 5 in 64 bits, small
        // enough to look exact: only the digit count sends it to the text path.
        for text in [
            "-122.41941550000001", "49.29340600000000123456", "12345678901234567890123", "1.7976931348623157e308",
            "18446744073709551621e-18",
        ] {
            let a = answers(Array(#"{"lat":2,"lon":\#(text)}"#.utf8), dialect: .native)
            #expect(a.fast != nil, "\(text)")
            #expect(a.agree, "\(text)")
        }
        let a = answers(Array(#"{"lat":2,"lon":-122.41941550000001}"#.utf8), dialect: .native)
        #expect(try a.fast?.get().lon == -122.41941550000001)
    }
}
