import Foundation

/// What a GPX file's bytes must not hold before Foundation's `XMLParser` sees them: on Linux that
/// parser stops the process on a name that is not UTF-8 and on a processing instruction without data
/// (`<?x?>`, whose data it reads through a null pointer), and it expands entities, whose text could
/// bring either in unseen. Such a file is an error naming its line (docs/simulator.md "Simulator").
enum GPXPreflight {
    static let notUTF8 = "not UTF-8 (nor declared as ISO-8859-1)"
    static let emptyInstruction = "a processing instruction without data (<?name?>) is not supported"
    static let entityDeclaration = "entity declarations (<!ENTITY) are not supported"

    /// The first problem and its 1-based line, or `nil`.
    static func problem(_ data: Data) -> (line: Int, message: String)? {
        let bytes = [UInt8](data)
        if declaredEncoding(bytes).map(["iso-8859-1", "iso_8859-1", "latin1", "latin-1"].contains) != true,
           let offset = firstOffsetNotUTF8(bytes) {
            return (line(of: offset, in: bytes), notUTF8)
        }
        var i = 0
        while i + 1 < bytes.count {
            defer { i += 1 }
            guard bytes[i] == UInt8(ascii: "<") else { continue }
            if bytes[i + 1] == UInt8(ascii: "?"), instructionWithoutData(bytes, from: i + 2) {
                return (line(of: i, in: bytes), emptyInstruction)
            }
            if bytes[(i + 1)...].starts(with: Array("!ENTITY".utf8)) { return (line(of: i, in: bytes), entityDeclaration) }
        }
        return nil
    }

    /// Whether `?>` follows the name starting at `start` without a blank between (libxml2 then passes no data).
    private static func instructionWithoutData(_ bytes: [UInt8], from start: Int) -> Bool {
        var k = start
        while k + 1 < bytes.count {
            switch bytes[k] {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "<"), UInt8(ascii: ">"): return false
            case UInt8(ascii: "?") where bytes[k + 1] == UInt8(ascii: ">"): return k > start
            default: k += 1
            }
        }
        return false
    }

    private static func firstOffsetNotUTF8(_ bytes: [UInt8]) -> Int? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case let .scalarValue(scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    private static func line(of offset: Int, in bytes: [UInt8]) -> Int {
        1 + bytes[..<offset].lazy.filter { $0 == 0x0A }.count
    }

    /// The `encoding` of a well-formed XML declaration (`<?xml version="1.0" encoding="NAME"?>`), lower case.
    static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        let head = bytes.prefix(200)
        guard head.starts(with: Array("<?xml".utf8)), let end = head.firstRange(of: Array("?>".utf8))?.lowerBound else { return nil }
        let declaration = head[..<end]
        guard let key = declaration.firstRange(of: Array(" encoding".utf8))?.upperBound else { return nil }
        var rest = declaration[key...].drop { $0 == 0x20 }
        guard rest.first == UInt8(ascii: "=") else { return nil }
        rest = rest.dropFirst().drop { $0 == 0x20 }
        guard let quote = rest.first, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { return nil }
        let name = rest.dropFirst().prefix { $0 != quote }
        guard name.count < rest.count - 1, !name.isEmpty,
              name.allSatisfy({ (0x41...0x5A).contains($0 & 0xDF) || (0x30...0x39).contains($0) || ".-_".utf8.contains($0) })
        else { return nil }
        return String(decoding: name, as: UTF8.self).lowercased()
    }
}
