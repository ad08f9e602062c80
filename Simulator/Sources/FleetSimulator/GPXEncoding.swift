import Foundation

/// The text encoding check that runs before a GPX file reaches Foundation's `XMLParser`, which on Linux
/// stops the process on a name that is not UTF-8 (its start-element callback force-unwraps the decoded
/// name): such a file is an error naming its line instead (README "Simulator").
enum GPXEncoding {
    /// The 1-based line of the first byte that is not well-formed UTF-8, or `nil` when there is none or the
    /// file is not UTF-8 by its own word (a UTF-16 byte order mark, or another `encoding` in its XML
    /// declaration), which libxml2 converts to UTF-8 itself.
    static func firstLineNotUTF8(_ data: Data) -> Int? {
        guard !declaresAnotherEncoding(data) else { return nil }
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

    private static func declaresAnotherEncoding(_ data: Data) -> Bool {
        if data.starts(with: [0xFE, 0xFF]) || data.starts(with: [0xFF, 0xFE]) { return true }
        guard data.starts(with: Array("<?xml".utf8)) else { return false }
        let declaration = String(decoding: data.prefix(200).prefix { $0 != UInt8(ascii: ">") }, as: UTF8.self).lowercased()
        guard let range = declaration.range(of: "encoding") else { return false }
        let value = declaration[range.upperBound...].drop { " =\"'\t\r\n".contains($0) }.prefix { !" \"'?\t\r\n".contains($0) }
        return value != "utf-8" && value != "utf8"
    }
}
