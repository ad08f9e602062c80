import Foundation
import Testing

/// Comments cite the README by section (`README "Tours"`, `README, "Fences", "Journal"`): the reader
/// of the code has the README, so every section cited must be one of its headings.
@Suite("Cited README sections")
struct CitedSectionsTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func everySectionACommentCitesIsAHeadingOfTheREADME() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let headings = Set(readme.split(separator: "\n").filter { $0.hasPrefix("#") }.map {
            String($0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces))
        })
        var cited = 0
        var missing: [String] = []
        for folder in ["Sources", "Tests", "Simulator", "Benchmarks", "Fuzz"] {
            let files = FileManager.default.enumerator(atPath: Self.root.appendingPathComponent(folder).path)
            while let file = files?.nextObject() as? String {
                guard file.hasSuffix(".swift") else { continue }
                let text = try String(contentsOf: Self.root.appendingPathComponent(folder).appendingPathComponent(file), encoding: .utf8)
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() where line.contains("//") && line.contains("README") {
                    // The citation's quoted names, also on the next comment line when it goes on there.
                    var tail = String(line[line.range(of: "README")!.upperBound...])
                    let next = number + 1 < lines.count ? lines[number + 1].trimmingCharacters(in: .whitespaces) : ""
                    if next.hasPrefix("//") { tail += " " + next.drop { $0 == "/" }.trimmingCharacters(in: .whitespaces) }
                    // The names right after README: `"A"`, `"A", "B"`, `"A" and "B"`.
                    guard let run = tail.firstMatch(of: /^[,\s]*(?:\(?"[^"]+"(?:,\s*|\s+and\s+)?)+/) else { continue }
                    for match in run.0.matches(of: /"([^"\\]+)"/) {
                        cited += 1
                        let name = match.1.split(whereSeparator: \.isWhitespace).joined(separator: " ")
                        if !headings.contains(name) { missing.append("\(folder)/\(file):\(number + 1) cites \"\(name)\"") }
                    }
                }
            }
        }
        #expect(cited > 100, "the scan found the citations")
        #expect(missing.isEmpty, "\(missing.joined(separator: "\n"))")
    }
}
