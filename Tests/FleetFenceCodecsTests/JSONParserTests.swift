import Foundation
import Testing
@testable import FleetFenceCodecs
import SeededRandom

// MARK: - Helpers

/// Parses a copy of `bytes` in an allocation of exactly their size (see `withExactBytes`).
private func parsed(_ bytes: [UInt8]) -> Result<JSONValue, JSONSyntaxError> {
    withExactBytes(bytes) { JSONParser.parse($0) }
}

private func parsed(_ text: String) -> Result<JSONValue, JSONSyntaxError> {
    parsed(Array(text.utf8))
}

private func value(_ text: String) throws -> JSONValue {
    try parsed(text).get()
}

private func failure(_ bytes: [UInt8]) -> JSONSyntaxError? {
    if case let .failure(error) = parsed(bytes) { return error }
    return nil
}

private func failure(_ text: String) -> JSONSyntaxError? {
    failure(Array(text.utf8))
}

private func number(_ text: String) -> Double? {
    if case let .success(.number(x)) = parsed(text) { return x }
    return nil
}

private func string(_ bytes: [UInt8]) -> String? {
    if case let .success(.string(s)) = parsed(bytes) { return s }
    return nil
}

private func string(_ text: String) -> String? {
    string(Array(text.utf8))
}

/// `"` + bytes + `"`.
private func quoted(_ bytes: [UInt8]) -> [UInt8] {
    [0x22] + bytes + [0x22]
}

/// Equal, with numbers compared bit for bit, strings scalar for scalar and objects in member order (or, with
/// `orderedObjects: false`, as key → value maps; for documents without repeated keys).
private func same(_ a: JSONValue, _ b: JSONValue, orderedObjects: Bool = true) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case let (.bool(x), .bool(y)): return x == y
    case let (.number(x), .number(y)): return x.bitPattern == y.bitPattern
    case let (.string(x), .string(y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
    case let (.array(x), .array(y)):
        return x.count == y.count && zip(x, y).allSatisfy { same($0, $1, orderedObjects: orderedObjects) }
    case let (.object(x), .object(y)):
        guard x.count == y.count else { return false }
        if orderedObjects {
            return zip(x, y).allSatisfy {
                $0.key.unicodeScalars.elementsEqual($1.key.unicodeScalars) && same($0.value, $1.value, orderedObjects: true)
            }
        }
        return x.allSatisfy { member in y[member.key].map { same(member.value, $0, orderedObjects: false) } ?? false }
    default: return false
    }
}

/// The nesting depth of a parsed value (a scalar is 0).
private func depth(_ value: JSONValue) -> Int {
    switch value {
    case let .array(items): 1 + (items.map(depth).max() ?? 0)
    case let .object(object): 1 + (object.map { depth($0.value) }.max() ?? 0)
    default: 0
    }
}

// MARK: - The rules

@Suite("JSON parser")
struct JSONParserTests {
    // MARK: Literals and the top level

    @Test func literals() throws {
        #expect(try value("true") == .bool(true))
        #expect(try value("false") == .bool(false))
        #expect(try value("null") == .null)
        #expect(try value(" \t\r\ntrue\n") == .bool(true))
        #expect(try value("[true,false,null]") == .array([.bool(true), .bool(false), .null]))
    }

    @Test func malformedLiterals() {
        let cases: [(String, String)] = [
            ("tru", "unexpected end of input at byte 3 (expected 'true')"),
            ("t", "unexpected end of input at byte 1 (expected 'true')"),
            ("True", "unexpected character 'T' at byte 0 (expected a value)"),
            ("NULL", "unexpected character 'N' at byte 0 (expected a value)"),
            ("trUe", "unexpected character 'U' at byte 2 (expected 'true')"),
            ("nul", "unexpected end of input at byte 3 (expected 'null')"),
            ("fals", "unexpected end of input at byte 4 (expected 'false')"),
            ("falsy", "unexpected character 'y' at byte 4 (expected 'false')"),
            ("nulll", "trailing characters at byte 4"),
            ("truefalse", "trailing characters at byte 4"),
            ("[nil]", "unexpected character 'i' at byte 2 (expected 'null')"),
            ("[truex]", "unexpected character 'x' at byte 5 (expected ',' or ']')"),
            ("undefined", "unexpected character 'u' at byte 0 (expected a value)"),
        ]
        for (text, detail) in cases {
            #expect(failure(text)?.detail == detail, "\(text)")
        }
    }

    @Test func everyKindAtTheTopLevel() throws {
        #expect(try value("1") == .number(1))
        #expect(try value(#""x""#) == .string("x"))
        #expect(try value("[]") == .array([]))
        #expect(try value("{}") == .object(JSONObject()))
        #expect(try value(" [ ] ") == .array([]))
        #expect(try value("{ }") == .object([:]))
    }

    @Test func emptyInput() {
        #expect(failure([]) == JSONSyntaxError(detail: "unexpected end of input at byte 0 (expected a value)", offset: 0))
        // A buffer without a base address, as an empty Data or Array may hand out.
        if case let .failure(error) = JSONParser.parse(UnsafeRawBufferPointer(start: nil, count: 0)) {
            #expect(error.offset == 0)
        } else {
            Issue.record("empty buffer accepted")
        }
        #expect(failure("   ")?.detail == "unexpected end of input at byte 3 (expected a value)")
        #expect(failure("\n\t\r ")?.offset == 4)
    }

    @Test func whitespaceIsSpaceTabLineFeedAndCarriageReturnOnly() throws {
        let ws = " \t\n\r"
        let text = "\(ws){\(ws)\"a\"\(ws):\(ws)[\(ws)1\(ws),\(ws)2\(ws)]\(ws),\(ws)\"b\"\(ws):\(ws)null\(ws)}\(ws)"
        #expect(try value(text) == .object(["a": .array([.number(1), .number(2)]), "b": .null]))

        // Form feed, vertical tab, NUL, no-break space, line separator: not whitespace.
        #expect(failure([0x0C, 0x31])?.detail == "unexpected character 0x0C at byte 0 (expected a value)")
        #expect(failure([0x0B, 0x31])?.detail == "unexpected character 0x0B at byte 0 (expected a value)")
        #expect(failure([0x00, 0x31])?.detail == "unexpected character 0x00 at byte 0 (expected a value)")
        #expect(failure([0xC2, 0xA0, 0x31])?.detail == "unexpected character 0xC2 at byte 0 (expected a value)")
        #expect(failure([0x5B, 0xE2, 0x80, 0xA8, 0x31, 0x5D])?.detail == "unexpected character 0xE2 at byte 1 (expected a value)")
        #expect(failure([0x31, 0x0C])?.detail == "trailing characters at byte 1")
        #expect(failure("[1\u{0C}]")?.detail == "unexpected character 0x0C at byte 2 (expected ',' or ']')")
    }

    /// docs/topics-and-payloads.md "Fences": a leading byte order mark is refused (RFC 8259 §8.1 lets a parser ignore or refuse it).
    @Test func byteOrderMarkIsRefused() throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let refused = JSONSyntaxError(detail: "byte order mark at byte 0 (JSON text must not start with U+FEFF)", offset: 0)
        #expect(failure(bom + Array("[1]".utf8)) == refused)
        #expect(failure(bom + Array(" \n 1 ".utf8)) == refused)
        #expect(failure(bom + Array(#"{"lat":1,"lon":2}"#.utf8)) == refused)
        #expect(failure(bom) == refused)
        #expect(failure(bom + bom + [0x31]) == refused)
        // Anywhere else it is the character it always was: an error between tokens, text inside a string.
        #expect(failure([0x20] + bom + [0x31])?.detail == "unexpected character 0xEF at byte 1 (expected a value)")
        #expect(failure([0xEF, 0xBB, 0x31])?.detail == "unexpected character 0xEF at byte 0 (expected a value)")
        #expect(failure([0x31] + bom)?.detail == "trailing characters at byte 1")
        #expect(string(quoted(bom)) == "\u{FEFF}")
        #expect(string(#""\uFEFF""#) == "\u{FEFF}")
    }

    @Test func trailingCharacters() {
        let cases: [(String, Int)] = [
            ("1 2", 2), ("[]]", 2), ("{}}", 2), (#""a""b""#, 3), ("true false", 5), ("null\u{0}", 4), ("1x", 1),
            ("0x10", 1), ("[1]x", 3), ("{} []", 3), ("[1] ,", 4), ("\"a\" :", 4), ("1/", 1), ("1 // comment", 2),
        ]
        for (text, offset) in cases {
            #expect(failure(text) == JSONSyntaxError(detail: "trailing characters at byte \(offset)", offset: offset), "\(text)")
        }
    }

    // MARK: Numbers

    @Test func numbers() {
        let largestSubnormal = Double(bitPattern: 0x000F_FFFF_FFFF_FFFF)
        let cases: [(String, Double)] = [
            ("0", 0), ("-0", -0.0), ("0.0", 0), ("-0.0", -0.0), ("-0e5", -0.0), ("0e-999999999", 0),
            ("1", 1), ("-1", -1), ("123", 123), ("0.1", 0.1), ("-0.1", -0.1), ("49.2931", 49.2931), ("8.6413", 8.6413),
            ("-1.5E+3", -1500), ("1.5e3", 1500), ("1.5E-3", 0.0015), ("1e0", 1), ("1E00", 1), ("100e-2", 1),
            ("0.000001", 0.000001), ("123.456e-2", 1.23456), ("1e22", 1e22), ("1e23", 1e23), ("1e-22", 1e-22),
            ("123e30", 123e30), ("9007199254740992e20", 9007199254740992e20), ("0.30000000000000004", 0.30000000000000004),
            ("8.641362000000001", 8.641362000000001),
            // 17 and 20 significant digits
            ("1.2345678901234567", 1.2345678901234567), ("-98765.432109876543", -98765.432109876543),
            ("1.2345678901234567891", 1.2345678901234567891), ("12345678901234567891", 12345678901234567891.0),
            ("0.00000000000000000000123456789012345678901", 1.23456789012345678901e-21),
            // Integers above 2^53 round to nearest, ties to even.
            ("9007199254740993", 9007199254740992), ("9007199254740995", 9007199254740996),
            ("-9007199254740993", -9007199254740992), ("18446744073709551615", 18446744073709551616.0),
            ("18446744073709551616", 18446744073709551616.0), ("-9223372036854775808", -9223372036854775808.0),
            ("123456789012345678901234567890", 123456789012345678901234567890.0),
            ("10000000000000000000000000000000000000000", 1e40),
            // Exactly halfway between 1 and its successor: ties to even (Foundation's Decimal path gets 1.0000000000000004).
            ("1.00000000000000011102230246251565404236316680908203125", 1.0),
            ("1.00000000000000011102230246251565404236316680908203126", 1.0000000000000002),
            // The edges of Double.
            ("1e308", 1e308), ("1.7976931348623157e308", .greatestFiniteMagnitude),
            ("1.7976931348623158e308", .greatestFiniteMagnitude), ("-1.7976931348623157E+308", -.greatestFiniteMagnitude),
            ("2.2250738585072014e-308", .leastNormalMagnitude), ("2.2250738585072011e-308", largestSubnormal),
            ("5e-324", .leastNonzeroMagnitude), ("4.9406564584124654e-324", .leastNonzeroMagnitude),
            ("2.4703282292062328e-324", .leastNonzeroMagnitude), ("2.4703282292062327e-324", 0),
            ("1e-400", 0), ("-1e-400", -0.0), ("1e-99999999999999999999", 0),
        ]
        for (text, expected) in cases {
            let got = number(text)
            #expect(got?.bitPattern == expected.bitPattern, "\(text): got \(String(describing: got)), expected \(expected)")
        }
    }

    @Test func numbersOutOfRange() {
        for text in ["1e309", "-1e309", "1.7976931348623159e308", "1" + String(repeating: "0", count: 309), "1e400", "1E+99999999999999999999", "0.1e310"] {
            #expect(failure(text) == JSONSyntaxError(
                detail: "number out of range at byte 0 (too large for a Double)", offset: 0), "\(text)")
        }
        #expect(failure("[1, 1e309]")?.detail == "number out of range at byte 4 (too large for a Double)")
        #expect(failure(#"{"lat": -1e999}"#)?.offset == 8)
    }

    @Test func malformedNumbers() {
        let cases: [(String, String)] = [
            ("01", "invalid number at byte 0 (leading zero)"),
            ("-01", "invalid number at byte 0 (leading zero)"),
            ("00", "invalid number at byte 0 (leading zero)"),
            ("00.5", "invalid number at byte 0 (leading zero)"),
            ("[1, 012]", "invalid number at byte 4 (leading zero)"),
            ("1.", "invalid number at byte 0 (expected a digit after '.' at byte 2)"),
            ("[5.]", "invalid number at byte 1 (expected a digit after '.' at byte 3)"),
            ("1.e5", "invalid number at byte 0 (expected a digit after '.' at byte 2)"),
            ("-", "invalid number at byte 0 (expected a digit at byte 1)"),
            ("-a", "invalid number at byte 0 (expected a digit at byte 1)"),
            ("-.5", "invalid number at byte 0 (expected a digit at byte 1)"),
            ("--1", "invalid number at byte 0 (expected a digit at byte 1)"),
            ("- 1", "invalid number at byte 0 (expected a digit at byte 1)"),
            ("-Infinity", "invalid number at byte 0 (expected a digit at byte 1)"),
            ("1e", "invalid number at byte 0 (expected a digit in the exponent at byte 2)"),
            ("1e+", "invalid number at byte 0 (expected a digit in the exponent at byte 3)"),
            ("1E-", "invalid number at byte 0 (expected a digit in the exponent at byte 3)"),
            ("1ee5", "invalid number at byte 0 (expected a digit in the exponent at byte 2)"),
            ("1e+-5", "invalid number at byte 0 (expected a digit in the exponent at byte 3)"),
            ("1e5.5", "trailing characters at byte 3"),
            ("1.5.5", "trailing characters at byte 3"),
            ("1_000", "trailing characters at byte 1"),
            ("1,000", "trailing characters at byte 1"),
            ("0x1F", "trailing characters at byte 1"),
            (".5", "unexpected character '.' at byte 0 (expected a value)"),
            ("+1", "unexpected character '+' at byte 0 (expected a value)"),
            ("NaN", "unexpected character 'N' at byte 0 (expected a value)"),
            ("Infinity", "unexpected character 'I' at byte 0 (expected a value)"),
            ("[1 2]", "unexpected character '2' at byte 3 (expected ',' or ']')"),
            ("\u{661}", "unexpected character 0xD9 at byte 0 (expected a value)"),  // ARABIC-INDIC DIGIT ONE
        ]
        for (text, detail) in cases {
            #expect(failure(text)?.detail == detail, "\(text)")
        }
    }

    /// Shortest round-trip texts of random doubles read back to the same bits.
    @Test func randomDoublesRoundTrip() {
        var rng = SeededRandom(seed: 0x0D0B_1E00)
        var failures = 0
        for _ in 0..<20_000 {
            let x = Double(bitPattern: rng.next())
            guard x.isFinite else { continue }
            for text in [x.description, x.description.uppercased(), "[\(x)]"] {
                let got: Double? = switch parsed(text) {
                case let .success(.number(n)): n
                case let .success(.array(items)): if case let .number(n)? = items.first { n } else { nil }
                default: nil
                }
                if got?.bitPattern != x.bitPattern {
                    failures += 1
                    if failures <= 5 { Issue.record("\(text) read as \(String(describing: got))") }
                }
            }
        }
        #expect(failures == 0)
    }

    /// Random decimal texts (up to 25 digits, any exponent, through both the fast and the slow path) against
    /// the standard library's correctly rounded `Double(String)`.
    @Test func randomDecimalTextsAreCorrectlyRounded() {
        var rng = SeededRandom(seed: 0xDEC1_3A15)
        var failures = 0
        var checked = 0
        func digits(_ count: Int, nonzeroFirst: Bool) -> String {
            String((0..<count).map { k in
                Character(String(Int.random(in: (k == 0 && nonzeroFirst ? 1 : 0)...9, using: &rng)))
            })
        }
        for _ in 0..<30_000 {
            var text = Bool.random(using: &rng) ? "-" : ""
            let integerDigits = Int.random(in: 0...20, using: &rng)
            text += integerDigits == 0 ? "0" : digits(integerDigits, nonzeroFirst: true)
            if Bool.random(using: &rng) { text += "." + digits(Int.random(in: 1...20, using: &rng), nonzeroFirst: false) }
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: text += "e\(Int.random(in: -30...30, using: &rng))"
            case 1: text += "E+\(Int.random(in: 0...330, using: &rng))"
            case 2: text += "e-\(Int.random(in: 0...340, using: &rng))"
            default: break
            }
            guard let expected = Double(text), expected.isFinite else {
                #expect(failure(text)?.detail.hasPrefix("number out of range") == true, "\(text)")
                continue
            }
            checked += 1
            let got = number(text)
            if got?.bitPattern != expected.bitPattern {
                failures += 1
                if failures <= 5 { Issue.record("\(text): got \(String(describing: got)), expected \(expected)") }
            }
        }
        #expect(failures == 0)
        #expect(checked > 20_000)
    }

    // MARK: Strings

    @Test func escapes() {
        #expect(string(#""\" \\ \/ \b \f \n \r \t""#) == "\" \\ / \u{8} \u{C} \n \r \t")
        #expect(string(#""\u0041\u00e9\u00E9\u20AC\u20ac""#) == "Aéé€€")
        #expect(string(#""\u0000""#) == "\u{0}")
        #expect(string(#""\u001f\u007F\uFFFF\uFEFF""#) == "\u{1F}\u{7F}\u{FFFF}\u{FEFF}")
        #expect(string(#""a\nb""#) == "a\nb")
        #expect(string(#""\\""#) == "\\")
        #expect(string(#""\"""#) == "\"")
        #expect(string(#""abcdefghijklmnopqrstuvwxyz\tABCDEFGHIJKLMNOPQRSTUVWXYZ""#) == "abcdefghijklmnopqrstuvwxyz\tABCDEFGHIJKLMNOPQRSTUVWXYZ")
    }

    @Test func surrogatePairsMakeOneScalar() throws {
        let truck = try #require(string(#""\ud83d\ude9a""#))
        #expect(truck == "🚚")
        #expect(truck.unicodeScalars.map(\.value) == [0x1F69A])
        #expect(string(#""\uD83D\uDE9A""#) == "🚚")
        #expect(string(#""\uD800\uDC00\uDBFF\uDFFF""#)?.unicodeScalars.map(\.value) == [0x10000, 0x10FFFF])
        #expect(string(#""x\ud83d\ude9ay""#) == "x🚚y")
    }

    @Test func loneSurrogatesAreRejected() {
        let cases: [(String, Int)] = [
            (#""\ud83d""#, 1), (#""\ud83dx""#, 1), (#""\ud83d\ud83d""#, 1), (#""\ud83d\n""#, 1), (#""\ude9a""#, 1),
            (#""\ud83d\u0041""#, 1), (#""\udfff""#, 1), (#""ab\uDC00""#, 3), (#""\ud83d\ude9a\ude9a""#, 13),
            (#""\ud83d"#, 1), (#""\ud83d\"#, 1), (#""\ud83d\uDBFF\uDC00""#, 1),
        ]
        for (text, offset) in cases {
            #expect(failure(text) == JSONSyntaxError(
                detail: "invalid \\u escape (lone surrogate) at byte \(offset)", offset: offset), "\(text)")
        }
    }

    @Test func badEscapes() {
        let cases: [(String, String)] = [
            (#""\x""#, #"invalid escape '\x' at byte 1"#),
            (#""ab\a""#, #"invalid escape '\a' at byte 3"#),
            (#""\U0041""#, #"invalid escape '\U' at byte 1"#),
            (#""\'""#, #"invalid escape '\'' at byte 1"#),
            (#""\ ""#, #"invalid escape '\ ' at byte 1"#),
            ("\"\\\u{7}\"", #"invalid escape '\' followed by 0x07 at byte 1"#),
            ("\"\\é\"", #"invalid escape '\' followed by 0xC3 at byte 1"#),
            (#""\u12G4""#, #"invalid \u escape at byte 1 (expected 4 hex digits)"#),
            (#""\u12""#, #"invalid \u escape at byte 1 (expected 4 hex digits)"#),
            (#""\u""#, #"invalid \u escape at byte 1 (expected 4 hex digits)"#),
            (#""\ud83d\uDE9""#, #"invalid \u escape at byte 7 (expected 4 hex digits)"#),
            (#""\u 123""#, #"invalid \u escape at byte 1 (expected 4 hex digits)"#),
            (#""\u+123""#, #"invalid \u escape at byte 1 (expected 4 hex digits)"#),
        ]
        for (text, detail) in cases {
            #expect(failure(text)?.detail == detail, "\(text)")
        }
    }

    @Test func rawUTF8IsAccepted() {
        #expect(string("\"é€🚚日本\"") == "é€🚚日本")
        #expect(string("\"é\\n€\\t🚚\"") == "é\n€\t🚚")
        #expect(string("\"\u{10FFFF}\u{E000}\u{FFFD}\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\"") == "\u{10FFFF}\u{E000}\u{FFFD}\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}")
        let long = String(repeating: "Zürich Straße – 🚚 ", count: 20)
        #expect(string("\"\(long)\"") == long)
        #expect(string("\"\\\"\(long)\\\\\(long)\"") == "\"\(long)\\\(long)")
        // Canonically equivalent spellings stay as written.
        #expect(string("\"e\u{301}\"")?.unicodeScalars.count == 2)
    }

    @Test func invalidUTF8IsRejected() {
        let cases: [[UInt8]] = [
            [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2], [0xC2, 0x41], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF],
            [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xE2, 0x82], [0xE2, 0x28, 0xA1], [0xF0, 0x80, 0x80, 0x80],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],
            [0xFE], [0xFF], [0xF0, 0x9F, 0x9A], [0xF0, 0x9F, 0x9A, 0x41],
        ]
        for bad in cases {
            for prefix in [[], Array("abc".utf8), Array("é".utf8), Array("\\n".utf8), Array("0123456789abcdef".utf8)] {
                let at = 1 + prefix.count
                let expected = JSONSyntaxError(detail: "invalid UTF-8 in string at byte \(at)", offset: at)
                #expect(failure(quoted(prefix + bad)) == expected, "\(prefix + bad)")
                #expect(failure(quoted(prefix + bad + Array("\\t".utf8))) == expected, "\(prefix + bad) before an escape")
                #expect(failure(quoted(prefix + bad + Array("0123456789".utf8))) == expected, "\(prefix + bad) and more")
            }
        }
        // In a key too.
        #expect(failure([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])?.detail == "invalid UTF-8 in string at byte 2")
        // The last well-formed forms of each length are fine.
        #expect(string(quoted([0xC2, 0x80, 0xDF, 0xBF, 0xE0, 0xA0, 0x80, 0xED, 0x9F, 0xBF, 0xEE, 0x80, 0x80, 0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF]))
            == "\u{80}\u{7FF}\u{800}\u{D7FF}\u{E000}\u{10000}\u{10FFFF}")
    }

    @Test func controlCharactersMustBeEscaped() {
        for c in UInt8(0)..<0x20 {
            let expected = failure(quoted([c]))
            #expect(expected?.offset == 1)
            #expect(expected?.detail.hasPrefix("control character in string at byte 1") == true, "\(c)")
            #expect(failure(quoted(Array("\\n".utf8) + [c]))?.offset == 3)
        }
        #expect(failure(quoted([0x0A]))?.detail == "control character in string at byte 1 (0x0A must be written as an escape)")
        #expect(string(quoted([0x7F])) == "\u{7F}")
        // Wherever it is, in or out of an eight-byte block.
        for position in 0..<40 {
            var bytes = Array(repeating: UInt8(ascii: "a"), count: 40)
            bytes[position] = 0x1F
            #expect(failure(quoted(bytes))?.offset == position + 1)
        }
    }

    @Test func stringsOfEveryLengthAroundTheBlockSize() {
        for length in 0..<40 {
            let text = String((0..<length).map { Character(UnicodeScalar(UInt8(ascii: "a") + UInt8($0 % 26))) })
            #expect(string("\"\(text)\"") == text)
            #expect((try? value("[\"\(text)\",1]")) == .array([.string(text), .number(1)]))
            let accented = String(repeating: "é", count: length)
            #expect(string("\"\(accented)\"") == accented)
            // Each byte that needs attention, at each place.
            if length > 0 {
                #expect(string("\"\(text.dropLast())\\n\"") == String(text.dropLast()) + "\n")
                #expect(failure("\"\(text)")?.detail == "unterminated string starting at byte 0")
            }
        }
    }

    @Test func unterminatedStrings() {
        let cases: [(String, Int)] = [
            ("\"", 0), ("\"abc", 0), ("\"abc\\", 0), ("\"abc\\\"", 0), ("[\"abc", 1), ("{\"a", 1), ("{\"a\":\"", 5),
            ("\"\\u12", 0), ("\"\\ud83d\\ude9a", 0), ("\"\\n", 0), ("\"\\nabc", 0), (" \"" + String(repeating: "x", count: 100), 1),
        ]
        for (text, offset) in cases {
            #expect(failure(text) == JSONSyntaxError(detail: "unterminated string starting at byte \(offset)", offset: offset), "\(text)")
        }
    }

    // MARK: Arrays and objects

    @Test func objectsKeepTheirMembersInOrder() throws {
        let parsed = try value(#"{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[8.6413,49.2931]},"properties":{}}"#)
        guard case let .object(object) = parsed else { Issue.record("not an object"); return }
        #expect(object.keys == ["type", "id", "geometry", "properties"])
        #expect(object.count == 4)
        #expect(object["type"] == .string("Feature"))
        #expect(object["id"] == .number(7))
        #expect(object["missing"] == nil)
        #expect(object["geometry"] == .object(["type": .string("Point"), "coordinates": .array([.number(8.6413), .number(49.2931)])]))
        #expect(object["properties"] == .object(JSONObject()))
        #expect(object.map { $0.key } == ["type", "id", "geometry", "properties"])
        #expect(object[1].key == "id" && object[1].value == .number(7))
    }

    /// `grammarError`: what `parse` refuses beyond RFC 8259's grammar passes; what breaks the grammar
    /// is the same error as `parse`'s, also after a repeated key, a lone surrogate or a huge number.
    @Test func theGrammarAloneAcceptsWhatTheStrictParserRefusesForItsContent() {
        for text in [#"{"a":1,"a":2}"#, #""\ud800""#, #""\udc00x""#, #""\ud800\u0041""#, "1e400", #"[-1e999,{"k":{"k":1,"k":2}}]"#] {
            #expect(failure(text) != nil, "\(text)")
            #expect(JSONParser.grammarError(Array(text.utf8)) == nil, "\(text)")
        }
        for text in [#"{"a":1,"a":2,}"#, #""\ud800"#, "1e400 x", #"{"a":1,"a":2]"#, "[1,]", "", "\u{FEFF}1"] {
            #expect(JSONParser.grammarError(Array(text.utf8)) != nil, "\(text)")
        }
        #expect(JSONParser.grammarError(Array("[1,]".utf8)) == failure("[1,]"))
    }

    /// docs/topics-and-payloads.md "Fences": a key repeated in one object is refused, wherever the object is, at the repeat.
    @Test func repeatedKeysAreRefused() {
        #expect(failure(#"{"a":1,"b":2,"a":3}"#) == JSONSyntaxError(
            detail: #"duplicate key "a" at byte 13 (a key may appear once per object)"#, offset: 13))
        #expect(failure(#"{"lat":1,"lon":2,"lat":1}"#)?.offset == 17)  // the same value twice too
        #expect(failure(#"[{"x":{"a":null,"a":null}}]"#)?.offset == 16)
        #expect(failure(#"{"a":{"b":1},"c":{"b":1,"b":2}}"#)?.offset == 24)
        #expect(failure(#"{"":1,"":2}"#)?.detail == #"duplicate key "" at byte 6 (a key may appear once per object)"#)
        // Keys are compared after unescaping, and as Swift strings (canonical equivalence), as lookups compare them.
        #expect(failure(#"{"k\u0065y":1,"key":2}"#)?.offset == 14)
        #expect(failure(#"{"\u00e9":1,"e\u0301":2}"#)?.offset == 12)
        #expect(failure("{\"\u{212A}\":1,\"K\":2}")?.offset == 9)  // KELVIN SIGN is K
        // The first repeat in document order, past the 16 keys compared pairwise as well.
        let many = (0..<40).map { "\"k\($0)\":\($0)" }
        let manyText = "{" + many.joined(separator: ",") + ",\"k7\":0,\"k3\":0}"
        #expect(failure(manyText)?.detail.hasPrefix(#"duplicate key "k7" at byte "#) == true)
        let manyNonASCII = "{" + (0..<40).map { "\"é\($0)\":\($0)" }.joined(separator: ",") + ",\"e\u{301}9\":0}"
        #expect(failure(manyNonASCII)?.detail.hasPrefix(#"duplicate key "e\#u{301}9" at byte "#) == true)
        // A long key is shown cut short; quotes and control characters escaped.
        let long = String(repeating: "x", count: 100)
        #expect(failure(#"{"\#(long)":1,"\#(long)":2}"#)?.detail == #"duplicate key "\#(String(repeating: "x", count: 40))…" at byte 106 (a key may appear once per object)"#)
        #expect(failure(#"{"q\"\n":1,"q\"\n":2}"#)?.detail.hasPrefix(#"duplicate key "q\"\n" at byte 11"#) == true)
        // Keys that differ in any way are different keys.
        for text in [#"{"a":1,"A":2}"#, #"{"a":1,"a ":2}"#, #"{"é":1,"e":2}"#, #"{"a":{"a":{"a":1}}}"#, #"[{"a":1},{"a":1}]"#] {
            #expect(failure(text) == nil, "\(text)")
        }
    }

    /// Built by hand, an object may repeat a key: lookup finds the last, iteration gives all, in order.
    @Test func handBuiltObjectsKeepEveryMember() {
        let object = JSONObject([("a", .number(1)), ("b", .number(2)), ("a", .number(3))])
        #expect(object["a"] == .number(3))
        #expect(object["b"] == .number(2))
        #expect(object.count == 3)
        #expect(object.keys == ["a", "b", "a"])
        #expect(object.members.map { $0.value } == [.number(1), .number(2), .number(3)])
        var seen: [String] = []
        for (key, value) in object { seen.append("\(key)=\(value)") }
        #expect(seen == ["a=number(1.0)", "b=number(2.0)", "a=number(3.0)"])
        let literal: JSONObject = ["a": .number(1), "b": .number(2)]
        #expect(literal == JSONObject([("a", .number(1)), ("b", .number(2))]))
        // Order is part of equality.
        let ab: JSONObject = ["a": .null, "b": .null]
        let ba: JSONObject = ["b": .null, "a": .null]
        #expect(ab != ba)
    }

    @Test func nestedValues() throws {
        let text = #"[{"a":[[],{},[{}]],"b":{"c":{"d":[1,"2",true,null]}}}, [[[[]]]], ""]"#
        let expected: JSONValue = .array([
            .object([
                "a": .array([.array([]), .object([:]), .array([.object([:])])]),
                "b": .object(["c": .object(["d": .array([.number(1), .string("2"), .bool(true), .null])])]),
            ]),
            .array([.array([.array([.array([])])])]),
            .string(""),
        ])
        #expect(same(try value(text), expected))
    }

    @Test func structureErrors() {
        let cases: [(String, String)] = [
            ("[1,]", "trailing comma at byte 2 (not allowed in JSON)"),
            ("[1, ]", "trailing comma at byte 2 (not allowed in JSON)"),
            (#"{"a":1,}"#, "trailing comma at byte 6 (not allowed in JSON)"),
            (#"{"a":1 , }"#, "trailing comma at byte 7 (not allowed in JSON)"),
            ("[,]", "unexpected character ',' at byte 1 (expected a value)"),
            ("[,1]", "unexpected character ',' at byte 1 (expected a value)"),
            ("[1,,2]", "unexpected character ',' at byte 3 (expected a value)"),
            ("[1 2]", "unexpected character '2' at byte 3 (expected ',' or ']')"),
            ("[1}", "unexpected character '}' at byte 2 (expected ',' or ']')"),
            ("[1:2]", "unexpected character ':' at byte 2 (expected ',' or ']')"),
            (#"{"a" 1}"#, "unexpected character '1' at byte 5 (expected ':' after the key)"),
            (#"{"a"=1}"#, "unexpected character '=' at byte 4 (expected ':' after the key)"),
            (#"{1:2}"#, "unexpected character '1' at byte 1 (expected a string key)"),
            (#"{a:1}"#, "unexpected character 'a' at byte 1 (expected a string key)"),
            (#"{'a':1}"#, "unexpected character ''' at byte 1 (expected a string key)"),
            (#"{"a":}"#, "unexpected character '}' at byte 5 (expected a value)"),
            (#"{"a":1]"#, "unexpected character ']' at byte 6 (expected ',' or '}')"),
            (#"{"a":1 "b":2}"#, "unexpected character '\"' at byte 7 (expected ',' or '}')"),
            (#"{,}"#, "unexpected character ',' at byte 1 (expected a string key)"),
            (#"{"a":1,,}"#, "unexpected character ',' at byte 7 (expected a string key)"),
            (#"{"a":1,2}"#, "unexpected character '2' at byte 7 (expected a string key)"),
            ("[", "unexpected end of input at byte 1 (expected a value)"),
            ("[1", "unexpected end of input at byte 2 (expected ',' or ']')"),
            ("[1,", "unexpected end of input at byte 3 (expected a value)"),
            ("{", "unexpected end of input at byte 1 (expected a string key)"),
            (#"{"a""#, "unexpected end of input at byte 4 (expected ':' after the key)"),
            (#"{"a":"#, "unexpected end of input at byte 5 (expected a value)"),
            (#"{"a":1"#, "unexpected end of input at byte 6 (expected ',' or '}')"),
            (#"{"a":1,"#, "unexpected end of input at byte 7 (expected a string key)"),
            ("]", "unexpected character ']' at byte 0 (expected a value)"),
            ("}", "unexpected character '}' at byte 0 (expected a value)"),
            ("x", "unexpected character 'x' at byte 0 (expected a value)"),
            ("\u{1}", "unexpected character 0x01 at byte 0 (expected a value)"),
            ("é", "unexpected character 0xC3 at byte 0 (expected a value)"),
            ("[\u{7F}]", "unexpected character 0x7F at byte 1 (expected a value)"),
        ]
        for (text, detail) in cases {
            #expect(failure(text)?.detail == detail, "\(text)")
        }
        #expect(failure([0xFF])?.detail == "unexpected character 0xFF at byte 0 (expected a value)")
    }

    @Test func errorsCarryTheirOffsetAndDescribeThemselves() throws {
        let error = try #require(failure("[1, 2, x]"))
        #expect(error.offset == 7)
        #expect(error.detail == "unexpected character 'x' at byte 7 (expected a value)")
        #expect("\(error)" == error.detail)
        #expect(error.description == error.detail)
    }

    @Test func arrayOverloadAgreesWithTheBuffer() {
        for text in ["[1,2,{\"a\":null}]", "nope", "", "\"\\ud83d\\ude9a\""] {
            let bytes = Array(text.utf8)
            #expect(JSONParser.parse(bytes) == bytes.withUnsafeBytes { JSONParser.parse($0) })
        }
    }

    @Test func kindNames() {
        #expect(JSONValue.null.kindName == "null")
        #expect(JSONValue.bool(false).kindName == "a boolean")
        #expect(JSONValue.number(1).kindName == "a number")
        #expect(JSONValue.string("").kindName == "a string")
        #expect(JSONValue.array([]).kindName == "an array")
        #expect(JSONValue.object([:]).kindName == "an object")
    }

    // MARK: Nesting

    @Test func nestingTo512IsAcceptedAnd513IsNot() throws {
        func arrays(_ n: Int) -> String { String(repeating: "[", count: n) + String(repeating: "]", count: n) }
        func objects(_ n: Int) -> String { String(repeating: #"{"a":"#, count: n) + "1" + String(repeating: "}", count: n) }
        func mixed(_ n: Int) -> String {
            String((0..<n).map { $0 % 2 == 0 ? "[" : #"{"k":"# }.joined()) + "0"
                + String((0..<n).reversed().map { $0 % 2 == 0 ? "]" : "}" }.joined())
        }
        #expect(depth(try value(arrays(512))) == 512)
        #expect(depth(try value(objects(512))) == 512)
        #expect(depth(try value(mixed(512))) == 512)
        #expect(depth(try value("[" + arrays(511) + "," + objects(511) + "]")) == 512)

        let tooDeep = JSONSyntaxError(detail: "too deeply nested at byte 512 (more than 512 nested arrays and objects)", offset: 512)
        #expect(failure(arrays(513)) == tooDeep)
        #expect(failure(String(repeating: "[", count: 512) + "{}" + String(repeating: "]", count: 512)) == tooDeep)
        #expect(failure(objects(513))?.detail == "too deeply nested at byte \(512 * 5) (more than 512 nested arrays and objects)")
        #expect(failure(mixed(513))?.detail.hasPrefix("too deeply nested") == true)
        // Depth is nesting, not the number of containers.
        let wide = "[" + Array(repeating: arrays(511), count: 50).joined(separator: ",") + "]"
        #expect(depth(try value(wide)) == 512)
    }

    @Test func hostileNestingDoesNotCrash() {
        #expect(failure(String(repeating: "[", count: 100_000))?.offset == 512)
        #expect(failure(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000))?.offset == 512)
        #expect(failure(String(repeating: #"{"a":"#, count: 100_000))?.offset == 512 * 5)
        #expect(failure(String(repeating: "[{\"\":", count: 100_000))?.detail.hasPrefix("too deeply nested") == true)
    }

    /// Every proper prefix of a document is an error (and reads nothing past the end: exact-size buffers).
    @Test func everyTruncationIsRejected() {
        let document = Array(#"{"type":"Feature","a":[1,-2.5e-3,true,false,null,{"b":"x\n\u00e9\ud83d\ude9a"}],"é":"🚚","long":"0123456789abcdefghij"}"#.utf8)
        #expect((try? parsed(document).get()) != nil)
        for length in 0..<document.count {
            #expect(failure(Array(document.prefix(length))) != nil, "prefix of \(length) bytes")
        }
    }
}

// MARK: - Against JSONSerialization

/// Random documents, written out and read back by both parsers.
///
/// Where they differ by design (all of them `JSONSerialization` departing from RFC 8259 or from correct
/// rounding), the comparison says so explicitly:
/// - trailing commas: `JSONSerialization` accepts `[1,]` and `{"a":1,}`;
/// - UTF-16 and UTF-32: `JSONSerialization` guesses another encoding from a byte order mark or zero bytes among
///   the first four (RFC 8259 §8.1 requires UTF-8 between systems; `JSONParser` reads UTF-8 only);
/// - `-0`: `JSONSerialization` reads integer tokens as `Int64`, which has no negative zero (`-0.0` keeps it);
/// - numbers with more than 17 characters before the exponent: `JSONSerialization` reads those through `Decimal`,
///   whose conversion to `Double` is not correctly rounded (off by a few units in the last place);
/// - U+FEFF: `JSONSerialization` drops a U+FEFF written raw (not as `\ufeff`) at the start of a string or right
///   after an escape, in values and keys alike (it decodes each run between escapes with
///   `String(bytes:encoding: .utf8)`, which takes a leading U+FEFF for a byte order mark). RFC 8259 strings are
///   code points as written; `JSONParser` keeps it;
/// - repeated keys and a leading byte order mark: `JSONSerialization` takes the last member and skips the
///   mark; `JSONParser` refuses both (docs/topics-and-payloads.md "Fences").
@Suite("JSON parser against JSONSerialization")
struct JSONParserDifferentialTests {
    static let seeds: [UInt64] = [0x5EED_0101, 0x5EED_0202, 0x5EED_0303, 0x5EED_0404]

    /// How the numbers compared.
    struct Tally {
        var bitExact = 0
        var negativeZeroInteger = 0
        var decimalPath = 0
        var worstDecimalULPs = 0.0
        var droppedFEFF = 0
    }

    /// JSONParser's answers where JSONSerialization's differ (its answer in the comment).
    @Test func whereJSONSerializationDiffers() throws {
        #expect(failure("[1,]") != nil)  // [1]
        #expect(failure(#"{"a":1,}"#) != nil)  // ["a": 1]
        #expect(number("-0")?.sign == .minus)  // 0 (an Int64)
        #expect(string([0x22, 0xEF, 0xBB, 0xBF, 0x78, 0x22]) == "\u{FEFF}x")  // "x"
        #expect(string(#""\n\#u{FEFF}x""#) == "\n\u{FEFF}x")  // "\nx"
        #expect(failure(#"{"a":1,"a":2}"#)?.detail.hasPrefix("duplicate key") == true)  // ["a": 2]
        #expect(failure([0xEF, 0xBB, 0xBF, 0x31])?.detail.hasPrefix("byte order mark") == true)  // 1
        #expect(failure([0x5B, 0x00, 0x31, 0x00, 0x5D, 0x00]) != nil)  // [1], read as UTF-16LE
        #expect(failure([0x31, 0x00]) != nil)  // 1, read as UTF-16LE
        // 1.0000000000000004 (through Decimal)
        #expect(number("1.00000000000000011102230246251565404236316680908203125") == 1.0)
    }

    @Test(arguments: seeds)
    func generatedDocumentsReadTheSame(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var tally = Tally()
        var failures = 0
        for n in 0..<100 {
            // Own writer: every escape and number spelling, random whitespace.
            // Foundation's writer: what JSONSerialization itself produces.
            let foundationWrites = n % 4 == 3
            let model = Generator.value(depth: 0, using: &rng)
            let bytes: [UInt8]
            if foundationWrites {
                bytes = Array(try JSONSerialization.data(withJSONObject: Generator.foundationObject(model), options: [.fragmentsAllowed]))
            } else {
                bytes = Writer.write(model, using: &rng)
            }

            let mine = try #require(try? parsed(bytes).get(), "JSONParser rejects \(describe(bytes)): \(parsed(bytes))")
            if !same(mine, model, orderedObjects: !foundationWrites) {
                failures += 1
                Issue.record("seed \(seed) document \(n): read \(mine), wrote \(model) as \(describe(bytes))")
            }
            let theirs = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            if let difference = disagreement(mine, theirs, path: "$", tally: &tally) {
                failures += 1
                Issue.record("seed \(seed) document \(n): \(difference) in \(describe(bytes))")
            }
        }
        #expect(failures == 0)
        #expect(tally.bitExact > 150, "only \(tally.bitExact) numbers compared bit for bit")
        #expect(tally.worstDecimalULPs <= 16)
    }

    @Test(arguments: seeds)
    func mutatedDocumentsAreAcceptedAndRejectedAlike(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var bases = Self.fixedDocuments
        for _ in 0..<40 {
            bases.append(Writer.write(Generator.value(depth: 2, using: &rng), using: &rng))
        }
        var tally = Tally()
        var counts = (bothAccept: 0, bothReject: 0, trailingComma: 0, replacedNumber: 0, otherEncoding: 0, repeatedKey: 0)
        var failures = 0
        for n in 0..<5_000 {
            let input = mutator.mutate(bases.randomElement(using: &rng)!, using: &rng)
            let mine = parsed(input)
            if Self.foundationReadsAnotherEncoding(input) {
                counts.otherEncoding += 1
                continue
            }
            let theirs = try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed])
            var problem: String?
            switch (mine, theirs) {
            case (.failure, nil):
                counts.bothReject += 1
            case let (.success(value), theirs?):
                counts.bothAccept += 1
                problem = disagreement(value, theirs, path: "$", tally: &tally)
            case (.success, nil):
                problem = "JSONParser accepts what JSONSerialization rejects"
            case let (.failure(error), theirs?):
                // What JSONSerialization lets through (see the suite): without trailing commas, without a leading
                // byte order mark, and with 0 for a number out of range (which it must have dropped), both must
                // agree. A repeated key (a mutation's) has no such repair: JSONSerialization keeps the last member.
                var repaired = input
                var result = mine
                var error = error
                var repairs = (commas: 0, numbers: 0)
                while true {
                    if error.detail.hasPrefix("trailing comma") {
                        repaired.remove(at: error.offset)
                        repairs.commas += 1
                    } else if error.detail.hasPrefix("number out of range") {
                        var end = error.offset + 1
                        while end < repaired.count, Array("0123456789.eE+-".utf8).contains(repaired[end]) { end += 1 }
                        repaired.replaceSubrange(error.offset..<end, with: [UInt8(ascii: "0")])
                        repairs.numbers += 1
                    } else if error.detail.hasPrefix("byte order mark") {
                        repaired.removeFirst(3)
                    } else {
                        break
                    }
                    result = parsed(repaired)
                    guard case let .failure(next) = result else { break }
                    error = next
                }
                switch result {
                case let .success(value):
                    counts.trailingComma += repairs.commas > 0 ? 1 : 0
                    counts.replacedNumber += repairs.numbers > 0 ? 1 : 0
                    problem = disagreement(value, theirs, path: "$", tally: &tally)
                case let .failure(error) where error.detail.hasPrefix("duplicate key"):
                    counts.repeatedKey += 1
                case .failure:
                    problem = "JSONSerialization accepts what JSONParser rejects: \(error)"
                }
            }
            if let problem {
                failures += 1
                if failures <= 10 { Issue.record("seed \(seed) input \(n): \(problem) on \(describe(input))") }
            }
        }
        #expect(failures == 0)
        // Mutations must exercise both answers, and the exclusions must stay exceptions.
        #expect(counts.bothAccept > 400 && counts.bothReject > 3_500, "\(counts)")
        #expect(counts.trailingComma + counts.replacedNumber + counts.otherEncoding + counts.repeatedKey < 250, "\(counts)")
    }

    static let fixedDocuments: [[UInt8]] = [
        #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"id":"wdf01","name":"SAP SE WDF01","radius":200},"geometry":{"type":"Point","coordinates":[8.6413,49.2931]}}]}"#,
        #"{"type":"Feature","properties":{"id":"yard"},"geometry":{"type":"Polygon","coordinates":[[[8.0,49.0],[8.1,49.0],[8.1,49.1],[8.0,49.0]]]}}"#,
        #"[1, -0.5, 2.5e-3, 1E+2, 0, -0, 123456789012, 0.000001, true, false, null, "", "a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude9a"]"#,
        #"{"lat":49.293406,"lon":8.641362,"ts":"2026-11-22T10:00:05.500Z","id":"truck-7","a":{"b":{"c":[[[]]]}}}"#,
        "[\"Zürich\", \"日本\", \"🚚\", {\"é\": \"€\"}]",
        " \t\n\r{ \"a\" : [ 1 , 2 ] , \"b\" : { } } \r\n",
    ].map { Array($0.utf8) }

    /// `JSONSerialization` reads UTF-16 or UTF-32 when the input starts with their byte order mark, or when zero
    /// bytes among the first four look like one of them (`detectEncoding` in swift-corelibs-foundation).
    static func foundationReadsAnotherEncoding(_ b: [UInt8]) -> Bool {
        if b.starts(with: [0xEF, 0xBB, 0xBF]) { return false }
        if b.starts(with: [0xFE, 0xFF]) || b.starts(with: [0xFF, 0xFE]) || b.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return true }
        if b.count >= 4 { return (b[0] == 0 && b[2] == 0) || (b[1] == 0 && b[3] == 0) }
        if b.count >= 2 { return b[0] == 0 || b[1] == 0 }
        return false
    }
}

/// What JSONSerialization returned, with `true`/`false` told apart from numbers: an `NSNumber` of the
/// boolean class would pass `as? Double`. Containers are asked first: asking a Swift dictionary whether
/// it is an `NSNumber` bridges it whole.
private enum FoundationKind {
    case null, bool(Bool), number(Double), string(String), array([Any]), object([String: Any])

    private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    init(_ value: Any) {
        switch value {
        case let object as [String: Any]: self = .object(object)
        case let array as [Any]: self = .array(array)
        case let text as String: self = .string(text)
        case is NSNull: self = .null
        case let number as NSNumber:
            self = ObjectIdentifier(type(of: number)) == Self.booleanClass ? .bool(number.boolValue) : .number(number.doubleValue)
        default: self = .null
        }
    }
}

/// Where `mine` and JSONSerialization's `theirs` differ, or `nil` (see the suite for the allowed differences).
private func disagreement(_ mine: JSONValue, _ theirs: Any, path: String, tally: inout JSONParserDifferentialTests.Tally) -> String? {
    switch (mine, FoundationKind(theirs)) {
    case (.null, .null):
        return nil
    case let (.bool(a), .bool(b)):
        return a == b ? nil : "\(path): \(a) against \(b)"
    case let (.number(a), .number(b)):
        if a.bitPattern == b.bitPattern {
            tally.bitExact += 1
            return nil
        }
        if a == 0, b == 0, a.sign == .minus, let number = theirs as? NSNumber, !["d", "f"].contains(String(cString: number.objCType)) {
            tally.negativeZeroInteger += 1
            return nil
        }
        if theirs is NSDecimalNumber {
            let ulps = abs(a - b) / a.ulp
            tally.decimalPath += 1
            tally.worstDecimalULPs = max(tally.worstDecimalULPs, ulps)
            return ulps <= 16 ? nil : "\(path): \(a) against Decimal's \(b) (\(ulps) ulps)"
        }
        return "\(path): \(a) (\(String(a.bitPattern, radix: 16))) against \(b) (\(String(b.bitPattern, radix: 16)))"
    case let (.string(a), .string(b)):
        if a.unicodeScalars.elementsEqual(b.unicodeScalars) { return nil }
        if withoutFEFF(a).unicodeScalars.elementsEqual(withoutFEFF(b).unicodeScalars), countFEFF(b) < countFEFF(a) {
            tally.droppedFEFF += 1
            return nil
        }
        return "\(path): \(ascii(a)) against \(ascii(b))"
    case let (.array(a), .array(b)):
        guard a.count == b.count else { return "\(path): \(a.count) elements against \(b.count)" }
        for (k, (x, y)) in zip(a, b).enumerated() {
            if let difference = disagreement(x, y, path: "\(path)[\(k)]", tally: &tally) { return difference }
        }
        return nil
    case let (.object(a), .object(b)):
        // Keys as JSONSerialization has them: the last of equal keys wins (and, when a key lost a U+FEFF,
        // keys compare without any).
        let exact = Set(a.keys) == Set(b.keys)
        func key(_ text: String) -> String { exact ? text : withoutFEFF(text) }
        var mine: [String: JSONValue] = [:]
        for member in a { mine[key(member.key)] = member.value }
        guard Set(mine.keys) == Set(b.keys.map(key)), Set(b.keys.map(key)).count == b.count else {
            return "\(path): keys \(Set(a.keys).map(ascii).sorted()) against \(b.keys.map(ascii).sorted())"
        }
        if !exact { tally.droppedFEFF += 1 }
        for (k, y) in b {
            if let difference = disagreement(mine[key(k)]!, y, path: "\(path)[\(ascii(k))]", tally: &tally) { return difference }
        }
        return nil
    case let (a, b):
        return "\(path): \(a) against \(b)"
    }
}

private func withoutFEFF(_ text: String) -> String {
    String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\u{FEFF}" }))
}

private func countFEFF(_ text: String) -> Int {
    text.unicodeScalars.filter { $0 == "\u{FEFF}" }.count
}

/// `"..."` with every scalar outside printable ASCII escaped (issue messages are split at any newline, U+2028 too).
private func ascii(_ text: String) -> String {
    "\"" + text.unicodeScalars.map { $0.escaped(asASCII: true) }.joined() + "\""
}

// MARK: - Generated documents

/// Random values whose numbers and strings stress the parser: every length of UTF-8, characters that need
/// escapes, numbers at the edges of Double.
private enum Generator {
    static let scalars: [Unicode.Scalar] = [
        "\"", "\\", "/", "\u{0}", "\u{8}", "\u{9}", "\u{A}", "\u{C}", "\u{D}", "\u{1F}", "\u{7F}", "é", "ß", "€", "日",
        "\u{FEFF}", "\u{2028}", "\u{FFFF}", "\u{E000}", "\u{301}", "🚚", "\u{10FFFF}", "\u{10000}",
    ]
    static let specialNumbers: [Double] = [
        0, -0.0, .leastNonzeroMagnitude, .leastNormalMagnitude, Double.leastNormalMagnitude.nextDown, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, 9007199254740992, 1e22, 1e23, 0.1, 1.0 / 3, 1e308, 123456789.125,
    ]
    static let keys = ["id", "name", "type", "a", "b", "coordinates", "é", "🚚", "k\"q", "", "x/y"]

    static func string(using rng: inout SeededRandom) -> String {
        let length = Int.random(in: 0...10, using: &rng) == 0 ? Int.random(in: 20...80, using: &rng) : Int.random(in: 0...12, using: &rng)
        var text = String.UnicodeScalarView()
        for _ in 0..<length {
            if Int.random(in: 0..<4, using: &rng) == 0 {
                text.append(scalars.randomElement(using: &rng)!)
            } else {
                text.append(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &rng)))
            }
        }
        return String(text)
    }

    static func number(using rng: inout SeededRandom) -> Double {
        switch Int.random(in: 0..<7, using: &rng) {
        case 0: return Double(Int.random(in: -1000...1000, using: &rng))
        case 1: return Double(Int.random(in: -180_000_000...180_000_000, using: &rng)) / 1e6
        case 2: return Double(Int64.random(in: .min ... .max, using: &rng))
        case 3: return Double.random(in: -1...1, using: &rng) * pow(10, Double(Int.random(in: -30...30, using: &rng)))
        case 4:
            return specialNumbers.randomElement(using: &rng)!
        default:
            while true {
                let x = Double(bitPattern: rng.next())
                if x.isFinite { return x }
            }
        }
    }

    /// A random value; an object never repeats a key (`JSONParser` refuses that).
    static func value(depth: Int, using rng: inout SeededRandom) -> JSONValue {
        let kind = depth >= 4 ? Int.random(in: 0..<4, using: &rng) : Int.random(in: 0..<7, using: &rng)
        switch kind {
        case 0: return Bool.random(using: &rng) ? .null : .bool(Bool.random(using: &rng))
        case 1, 2: return .number(number(using: &rng))
        case 3: return .string(string(using: &rng))
        case 4: return .array((0..<Int.random(in: 0...6, using: &rng)).map { _ in value(depth: depth + 1, using: &rng) })
        default:
            var members: [(key: String, value: JSONValue)] = []
            for _ in 0..<Int.random(in: 0...6, using: &rng) {
                let key = Bool.random(using: &rng) ? keys.randomElement(using: &rng)! : string(using: &rng)
                if members.contains(where: { $0.key == key }) { continue }
                members.append((key, value(depth: depth + 1, using: &rng)))
            }
            return .object(JSONObject(members))
        }
    }

    /// The value as `JSONSerialization` takes it.
    static func foundationObject(_ value: JSONValue) -> Any {
        switch value {
        case .null: NSNull()
        case let .bool(b): b
        case let .number(x): x
        case let .string(s): s
        case let .array(items): items.map(foundationObject)
        case let .object(object): Dictionary(object.map { ($0.key, foundationObject($0.value)) }, uniquingKeysWith: { $1 })
        }
    }
}

/// Writes JSON with every spelling the grammar allows for the same value.
private enum Writer {
    static func write(_ value: JSONValue, using rng: inout SeededRandom) -> [UInt8] {
        var bytes: [UInt8] = []
        space(&bytes, &rng)
        write(value, into: &bytes, &rng)
        space(&bytes, &rng)
        return bytes
    }

    static func space(_ bytes: inout [UInt8], _ rng: inout SeededRandom) {
        guard Int.random(in: 0..<3, using: &rng) == 0 else { return }
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
            bytes.append([0x20, 0x09, 0x0A, 0x0D].randomElement(using: &rng)!)
        }
    }

    static func write(_ value: JSONValue, into bytes: inout [UInt8], _ rng: inout SeededRandom) {
        switch value {
        case .null: bytes += Array("null".utf8)
        case let .bool(b): bytes += Array((b ? "true" : "false").utf8)
        case let .number(x): bytes += Array(spell(x, &rng).utf8)
        case let .string(s): quote(s, into: &bytes, &rng)
        case let .array(items):
            bytes.append(UInt8(ascii: "["))
            space(&bytes, &rng)
            for (k, item) in items.enumerated() {
                if k > 0 {
                    bytes.append(UInt8(ascii: ","))
                    space(&bytes, &rng)
                }
                write(item, into: &bytes, &rng)
                space(&bytes, &rng)
            }
            bytes.append(UInt8(ascii: "]"))
        case let .object(object):
            bytes.append(UInt8(ascii: "{"))
            space(&bytes, &rng)
            for (k, member) in object.enumerated() {
                if k > 0 {
                    bytes.append(UInt8(ascii: ","))
                    space(&bytes, &rng)
                }
                quote(member.key, into: &bytes, &rng)
                space(&bytes, &rng)
                bytes.append(UInt8(ascii: ":"))
                space(&bytes, &rng)
                write(member.value, into: &bytes, &rng)
                space(&bytes, &rng)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// The decimal value of `x`'s shortest round-trip text, spelled one of several equal ways: plain, with a
    /// fraction, with an exponent (e/E, with or without a sign), with extra zeros.
    static func spell(_ x: Double, _ rng: inout SeededRandom) -> String {
        // digits × 10^exponent, from Swift's shortest text ("-1.2345e-05", "123.0", "5e-324").
        let text = x.magnitude.description
        let parts = text.split(separator: "e")
        var exponent = parts.count == 2 ? Int(parts[1])! : 0
        var digits = ""
        for c in parts[0] {
            if c == "." { continue }
            digits.append(c)
        }
        if let dot = parts[0].firstIndex(of: ".") {
            exponent -= parts[0].distance(from: dot, to: parts[0].endIndex) - 1
        }
        while digits.count > 1, digits.first == "0" { digits.removeFirst() }
        while digits.count > 1, digits.last == "0" {
            digits.removeLast()
            exponent += 1
        }
        let sign = x.sign == .minus ? "-" : ""
        let e = Bool.random(using: &rng) ? "e" : "E"
        func exponentText(_ n: Int) -> String {
            n < 0 ? "\(n)" : (Bool.random(using: &rng) ? "+\(n)" : "\(n)")
        }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:
            // Integer significand: 12345e-9 (or just 12345).
            if exponent == 0, Bool.random(using: &rng) { return sign + digits }
            return sign + digits + e + exponentText(exponent)
        case 1 where (-30...30).contains(exponent):
            // Positional: 0.000012345, 12345000, 123.45, with trailing zeros now and then.
            let zeros = String(repeating: "0", count: Int.random(in: 0...2, using: &rng))
            if exponent >= 0 {
                let integer = digits + String(repeating: "0", count: exponent)
                return zeros.isEmpty ? sign + integer : sign + integer + "." + zeros
            }
            let point = digits.count + exponent
            if point > 0 {
                return sign + digits.prefix(point) + "." + digits.dropFirst(point) + zeros
            }
            return sign + "0." + String(repeating: "0", count: -point) + digits + zeros
        case 2:
            // Scientific: 1.2345e-5.
            let scaled = exponent + digits.count - 1
            let fraction = digits.dropFirst()
            return sign + digits.prefix(1) + (fraction.isEmpty ? "" : "." + fraction) + e + exponentText(scaled)
        default:
            return sign + text
        }
    }

    static func quote(_ s: String, into bytes: inout [UInt8], _ rng: inout SeededRandom) {
        let hexDigits = Array((Bool.random(using: &rng) ? "0123456789abcdef" : "0123456789ABCDEF").utf8)
        func u(_ unit: UInt32) {
            bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u")]
            for shift in stride(from: 12, through: 0, by: -4) { bytes.append(hexDigits[Int(unit >> UInt32(shift) & 0xF)]) }
        }
        bytes.append(UInt8(ascii: "\""))
        for scalar in s.unicodeScalars {
            let short: UInt8? = switch scalar {
            case "\"": UInt8(ascii: "\"")
            case "\\": UInt8(ascii: "\\")
            case "\u{8}": UInt8(ascii: "b")
            case "\u{C}": UInt8(ascii: "f")
            case "\n": UInt8(ascii: "n")
            case "\r": UInt8(ascii: "r")
            case "\t": UInt8(ascii: "t")
            case "/" where Bool.random(using: &rng): UInt8(ascii: "/")
            default: nil
            }
            let mustEscape = scalar.value < 0x20 || scalar == "\"" || scalar == "\\"
            if let short, !mustEscape || Bool.random(using: &rng) {
                bytes += [UInt8(ascii: "\\"), short]
            } else if mustEscape || Int.random(in: 0..<4, using: &rng) == 0 {
                if scalar.value >= 0x10000 {
                    let v = scalar.value - 0x10000
                    u(0xD800 + (v >> 10))
                    u(0xDC00 + (v & 0x3FF))
                } else {
                    u(scalar.value)
                }
            } else {
                bytes += Array(String(scalar).utf8)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// The parser's favourite bytes and near misses for `ByteMutator`.
private let mutator = ByteMutator(
    interesting: Array(#"{}[]",:.-+eE0123456789tfnulr\/bu"aAfF "#.utf8)
        + [0x09, 0x0A, 0x0D, 0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC3, 0xED, 0xA0, 0xF0, 0xF4, 0x90, 0xFF, 0xEF, 0xBB],
    tokens: ["-0", "1e400", "0.5e-400", "01", "1.", "\\u", "\\ud83d", "\\udc00", "\\x", ",", ",]", ",}", "[", "{", "\"", "tru", "nul"])
