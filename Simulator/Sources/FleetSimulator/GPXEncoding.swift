import Foundation

/// The text encoding check that runs before a GPX file reaches Foundation's `XMLParser`, which on Linux
/// stops the process on a name that is not UTF-8 (its start-element callback force-unwraps the decoded
/// name): such a file is an error naming its line instead (README "Simulator").
enum GPXEncoding {
    /// The 1-based line of the first byte that is not well-formed UTF-8, or `nil` when there is none or the
    /// file is in an encoding libxml2 converts to UTF-8 whatever its bytes: UTF-16 with a byte order mark,
    /// or ISO-8859-1 as its XML declaration says. Any other file must be UTF-8 (GPX files are, in practice).
    static func firstLineNotUTF8(_ data: Data) -> Int? {
        if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) { return nil }
        if let declared = declaredEncoding(data), ["iso-8859-1", "iso_8859-1", "latin1", "latin-1"].contains(declared) {
            return nil
        }
        var line = 1
        var bytes = data.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&bytes) {
            case let .scalarValue(scalar): if scalar == "\n" { line += 1 }
            case .emptyInput: return nil
            case .error: return line
            }
        }
    }

    /// The `encoding` of a well-formed XML declaration (`<?xml version="1.0" encoding="NAME"?>`), lower case.
    static func declaredEncoding(_ data: Data) -> String? {
        let head = Array(data.prefix(200))
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
