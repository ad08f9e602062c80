import Foundation
import Testing

/// Code, scripts, configuration and user-facing strings cite the documentation by section, in one form:
/// `docs/webhooks.md "Delivery"` for the user's guide in docs/, `README "The demo"` for what stays
/// in the README, several sections as `docs/rules.md "Tours", "Late samples"` or `"A" and "B"`. A reader
/// of the code has the documents, so every page cited must exist and every section cited must be one of
/// its headings. The documents' own relative links must lead somewhere too.
@Suite("Cited documentation sections")
struct CitedSectionsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Where citations are looked for: every text file of these, whatever its kind (Swift, scripts,
    /// JavaScript, the OpenAPI document, YAML, configuration templates).
    static let scanned = ["Sources", "Tests", "Simulator", "Benchmarks", "Fuzz", "Scripts", "Config", ".ci", "Package.swift"]
    /// Inputs, not text anyone reads for a citation.
    static let skipped = ["Fuzz/Corpus", "Simulator/Routes"]

    @Test func everyCitedSectionIsAHeadingOfTheDocumentCited() throws {
        var cited = 0
        var problems: [String] = []
        for file in try Self.textFiles() {
            guard let text = try? String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8) else { continue }
            for citation in Citation.all(in: text) {
                let place = "\(file):\(citation.line)"
                if citation.comma {
                    problems.append("\(place): write \(citation.document) \"\(citation.sections[0])\", without a comma after \(citation.document)")
                }
                guard let document = Markdown.load(citation.file) else {
                    problems.append("\(place): cites \(citation.document), which does not exist")
                    continue
                }
                for name in citation.sections {
                    cited += 1
                    if document.headings.contains(name) { continue }
                    let holders = Markdown.documents().filter { $0.headings.contains(name) }.map(\.path)
                    let hint = holders.isEmpty ? "no document has that heading" : "it is a heading of \(holders.joined(separator: ", "))"
                    problems.append("\(place): cites \(citation.document) \"\(name)\", not a heading there; \(hint)")
                }
            }
        }
        #expect(cited > 300, "the scan found the citations (\(cited))")
        #expect(problems.isEmpty, "\n\(problems.joined(separator: "\n"))")
    }

    @Test func everyRelativeLinkOfTheDocumentsLeadsToAFileAndHeading() throws {
        var links = 0
        var problems: [String] = []
        for document in Markdown.documents() {
            for link in document.links {
                links += 1
                let place = "\(document.path):\(link.line)"
                let (path, anchor) = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                    .map(String.init).splitFirst()
                let resolved = path.isEmpty ? document.path : Markdown.resolve(path, from: document.path)
                guard let resolved, FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(resolved).path) else {
                    problems.append("\(place): links to \(link.target), no such file")
                    continue
                }
                guard let anchor else { continue }
                guard let target = Markdown.load(resolved) else {
                    problems.append("\(place): links to \(link.target), an anchor in a file that is not Markdown")
                    continue
                }
                if !target.anchors.contains(anchor) {
                    problems.append("\(place): links to \(link.target), but \(resolved) has no heading with the anchor #\(anchor)")
                }
            }
        }
        #expect(links > 60, "the scan found the links (\(links))")
        #expect(problems.isEmpty, "\n\(problems.joined(separator: "\n"))")
    }

    /// The README is read first: its first lines give the demo and the test command (the one CI runs),
    /// and it links every page of the guide; every page starts with its title and a summary, and leads
    /// back to the README.
    @Test func theREADMELeadsToEveryPageAndEveryPageBack() throws {
        let documents = Markdown.documents()
        let readme = try #require(documents.first { $0.path == Markdown.readmePath })
        let opening = readme.lines.prefix(15)
        for command in ["Scripts/demo", "Scripts/test"] {
            #expect(opening.contains { $0.hasPrefix(command + " ") }, "README.md: \(command) is not among its first lines")
        }
        let linked = Set(readme.links.compactMap { Markdown.resolve(String($0.target.prefix { $0 != "#" }), from: readme.path) })
        let pages = documents.filter { $0.path.hasPrefix("docs/") }
        #expect(pages.count >= 10, "the guide's pages were found (\(pages.count))")
        for page in pages {
            #expect(linked.contains(page.path), "README.md does not link \(page.path)")
            #expect(page.lines.first?.hasPrefix("# ") == true, "\(page.path):1: the page does not start with its title")
            let summary = page.lines.dropFirst().drop { $0.isEmpty }.first ?? ""
            #expect(!summary.isEmpty && !summary.hasPrefix("#") && !summary.hasPrefix("```"), "\(page.path): no summary under the title")
            #expect(page.links.contains { Markdown.resolve($0.target, from: page.path) == Markdown.readmePath }, "\(page.path): no link back to the README")
        }
    }

    /// The text files under `scanned`, as paths from the package's root.
    static func textFiles() throws -> [String] {
        var files: [String] = []
        for top in scanned {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.appendingPathComponent(top).path, isDirectory: &isFolder) else { continue }
            guard isFolder.boolValue else {
                files.append(top)
                continue
            }
            let walk = FileManager.default.enumerator(atPath: root.appendingPathComponent(top).path)
            while let relative = walk?.nextObject() as? String {
                let path = top + "/" + relative
                if skipped.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) { continue }
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory),
                    !isDirectory.boolValue
                {
                    files.append(path)
                }
            }
        }
        return files.sorted()
    }
}

/// One citation: `README` or `docs/<page>.md`, then the quoted names of its sections, if any.
struct Citation {
    /// As written: `README` or `docs/<page>.md`.
    var document: String
    /// The file from the package's root.
    var file: String { document == Markdown.readmeName ? Markdown.readmePath : document }
    var sections: [String]
    /// A comma between the document and its first section: the old form.
    var comma: Bool
    var line: Int

    static func all(in text: String) -> [Citation] {
        let bytes = Array(text.utf8)
        var found: [Citation] = []
        var index = 0
        var line = 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") { line += 1 }
            if bytes[index] == UInt8(ascii: "R") || bytes[index] == UInt8(ascii: "d"), let (document, end) = documentName(in: bytes, at: index) {
                var cursor = end
                let comma = cursor < bytes.count && bytes[cursor] == UInt8(ascii: ",")
                if comma { cursor += 1 }
                var sections: [String] = []
                // A space before the first name: `"README"` closing a string literal is no citation.
                var start = skipGap(in: bytes, at: cursor)
                while start > cursor, let (name, after) = quoted(in: bytes, at: start) {
                    sections.append(name)
                    // The next name: `, "B"` or ` and "B"`.
                    cursor = skipGap(in: bytes, at: after)
                    if cursor < bytes.count, bytes[cursor] == UInt8(ascii: ",") {
                        cursor += 1
                    } else if matches(bytes, at: cursor, "and") {
                        cursor += 3
                    } else {
                        break
                    }
                    start = skipGap(in: bytes, at: cursor)
                }
                // `README,` followed by no section is prose ("the README, which ..."), not a citation.
                if document.hasPrefix("docs/") || !sections.isEmpty {
                    found.append(Citation(document: document, sections: sections, comma: comma && !sections.isEmpty, line: line))
                }
                index = end
                continue
            }
            index += 1
        }
        return found
    }

    /// `README` (a word of its own, not `README.md` or `READMEs`) or `docs/<page>.md` at `index`, and where it ends.
    static func documentName(in bytes: [UInt8], at index: Int) -> (String, Int)? {
        if index > 0, isWordByte(bytes[index - 1]) || bytes[index - 1] == UInt8(ascii: "/") { return nil }
        if matches(bytes, at: index, "README") {
            let end = index + 6
            if end < bytes.count, isWordByte(bytes[end]) || bytes[end] == UInt8(ascii: ".") && end + 1 < bytes.count && isWordByte(bytes[end + 1]) {
                return nil
            }
            return ("README", end)
        }
        guard matches(bytes, at: index, "docs/") else { return nil }
        var end = index + 5
        while end < bytes.count, isWordByte(bytes[end]) || bytes[end] == UInt8(ascii: "-") { end += 1 }
        guard end > index + 5, matches(bytes, at: end, ".md") else { return nil }
        end += 3
        if end < bytes.count, isWordByte(bytes[end]) { return nil }
        return (String(decoding: bytes[index..<end], as: UTF8.self), end)
    }

    /// Spaces, and a line break followed by the comment marker that goes on with the comment.
    static func skipGap(in bytes: [UInt8], at start: Int) -> Int {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"): index += 1
            case UInt8(ascii: "\n"):
                guard let after = commentContinuation(in: bytes, after: index) else { return index }
                index = after
            default: return index
            }
        }
        return index
    }

    /// After the line break at `newline`: past the indentation and the comment marker (`//`, `///`, `#`, `*`)
    /// of the next line, or nil when the next line is no comment's continuation.
    static func commentContinuation(in bytes: [UInt8], after newline: Int) -> Int? {
        var index = newline + 1
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") { index += 1 }
        let markerStart = index
        while index < bytes.count, bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "#") || bytes[index] == UInt8(ascii: "*") {
            index += 1
        }
        return index > markerStart ? index : nil
    }

    /// A quoted name, `"Late samples"` or, in a string literal, `\"Late samples\"`, also wrapped onto
    /// the comment's next line; whitespace collapsed.
    static func quoted(in bytes: [UInt8], at start: Int) -> (String, Int)? {
        var index = start
        if index < bytes.count, bytes[index] == UInt8(ascii: "\\") { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        var name: [UInt8] = []
        while index < bytes.count, name.count <= 100 {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                let text = String(decoding: name, as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
                return text.isEmpty ? nil : (text, index + 1)
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") else { return nil }
                index += 1
            case UInt8(ascii: "\n"):
                guard let after = commentContinuation(in: bytes, after: index) else { return nil }
                name.append(UInt8(ascii: " "))
                index = after
            default:
                name.append(bytes[index])
                index += 1
            }
        }
        return nil
    }

    static func matches(_ bytes: [UInt8], at index: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return word.withUTF8Buffer { word in (0..<count).allSatisfy { bytes[index + $0] == word[$0] } }
    }

    static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }
}

/// README.md or a page of docs/: its headings, their anchors and its relative links, code left out.
struct Markdown {
    /// The README as a citation names it, and its file. Named once: a literal of either followed
    /// by a quoted string reads as a citation to whoever scans the code for them.
    static let readmeName = "README"
    static let readmePath = "README.md"

    var path: String
    var lines: [String]
    var headings: Set<String>
    var anchors: Set<String>
    var links: [(target: String, line: Int)]

    static func documents() -> [Markdown] {
        let pages = (try? FileManager.default.contentsOfDirectory(atPath: CitedSectionsTests.root.appendingPathComponent("docs").path)) ?? []
        return ([readmePath] + pages.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }).compactMap(load)
    }

    static func load(_ path: String) -> Markdown? {
        guard path.hasSuffix(".md"),
            let text = try? String(contentsOf: CitedSectionsTests.root.appendingPathComponent(path), encoding: .utf8)
        else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var headings = Set<String>()
        var anchors = Set<String>()
        var prose: [String] = []
        var inFence = false
        for line in lines {
            if line.hasPrefix("```") {
                inFence.toggle()
                prose.append("")
                continue
            }
            if inFence {
                prose.append("")
                continue
            }
            prose.append(line)
            if let heading = line.firstMatch(of: /^#{1,6}\s+(.+?)\s*#*\s*$/) {
                let name = heading.1.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                headings.insert(name)
                // GitHub's anchors: the second heading with one slug gets -1, the third -2.
                let slug = Self.slug(name)
                var anchor = slug
                var repeats = 0
                while anchors.contains(anchor) {
                    repeats += 1
                    anchor = "\(slug)-\(repeats)"
                }
                anchors.insert(anchor)
            }
        }
        // Inline code is no link; blanked out character by character, so that line numbers hold.
        let bare = prose.joined(separator: "\n").replacing(/`[^`]*`/) { match in
            String(match.0.map { $0 == "\n" ? Character("\n") : Character(" ") })
        }
        var links: [(String, Int)] = []
        for match in bare.matches(of: /!?\[[^\]]*\]\(([^)\s]+)\)/) {
            let target = String(match.1)
            if target.contains("://") || target.hasPrefix("mailto:") { continue }
            let line = bare[..<match.range.lowerBound].count { $0 == "\n" } + 1
            links.append((target, line))
        }
        return Markdown(path: path, lines: lines, headings: headings, anchors: anchors, links: links)
    }

    /// GitHub's anchor of a heading: lower case, spaces to hyphens, punctuation dropped.
    static func slug(_ heading: String) -> String {
        String(heading.lowercased().filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" })
            .replacingOccurrences(of: " ", with: "-")
    }

    /// A relative link's path from the package's root, `..` and `.` resolved; nil when it leaves the package.
    static func resolve(_ target: String, from document: String) -> String? {
        var parts = document.split(separator: "/").dropLast().map(String.init)
        for part in target.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..":
                guard !parts.isEmpty else { return nil }
                parts.removeLast()
            default: parts.append(String(part))
            }
        }
        return parts.joined(separator: "/")
    }
}

extension Array where Element == String {
    /// `["a", "b"]` as `("a", "b")`, `["a"]` as `("a", nil)`.
    fileprivate func splitFirst() -> (String, String?) {
        (first ?? "", count > 1 ? self[1] : nil)
    }
}
