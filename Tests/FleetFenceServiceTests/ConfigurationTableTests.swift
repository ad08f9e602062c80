import FleetFenceSettings
import Foundation
import Testing

@testable import FleetFenceService

/// The documentation's table of keys (docs/configuration.md "Configuration", or wherever the docs moved it: any
/// `docs/*.md`) is the reader's copy of ``ConfigurationKey``: it must list exactly its keys, each
/// with its flag, default (and environment variable, if the table has that column) as the code has
/// them, besides the keys only the config file holds.
@Suite("Configuration table in the docs")
struct ConfigurationTableTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Lists of maps, read from the file alone: their rows say `(file only)` for a flag.
    static let fileOnlyKeys: Set<String> = [MappingsSection.key, WebhookSettings.configKey]

    @Test func theTableListsEveryKeyWithItsFlagVariableAndDefault() throws {
        let table = try #require(try Self.findTable(), "no table with a key column listing geofence.debounce_s in README.md or docs/*.md")
        let keyColumn = try #require(table.column("key"))
        let flagColumn = try #require(table.column("flag"))
        let defaultColumn = try #require(table.column("default"))
        let variableColumn = table.column("env") ?? table.column("environment") ?? table.column("variable")

        var problems: [String] = []
        var listed: [String] = []
        for row in table.rows {
            guard let name = Self.firstCode(row[keyColumn]) else { continue }
            listed.append(name)
            guard let key = ConfigurationKey(rawValue: name) else {
                if !Self.fileOnlyKeys.contains(name) { problems.append("\(name) is not a configuration key") }
                continue
            }
            if Self.firstCode(row[flagColumn]) != "--" + key.flag {
                problems.append("\(name): flag \(row[flagColumn]), the code's is --\(key.flag)")
            }
            if Self.value(row[defaultColumn]) != key.defaultDescription {
                problems.append("\(name): default \(row[defaultColumn]), the code's is \(key.defaultDescription)")
            }
            if let variableColumn, Self.firstCode(row[variableColumn]) != key.environmentVariable {
                problems.append("\(name): variable \(row[variableColumn]), the code's is \(key.environmentVariable)")
            }
        }
        let expected = ConfigurationKey.allCases.map(\.name) + Self.fileOnlyKeys
        for name in expected where !listed.contains(name) { problems.append("\(name) is missing from \(table.file)") }
        for name in Set(listed) where listed.filter({ $0 == name }).count > 1 { problems.append("\(name) is listed twice") }
        #expect(problems.isEmpty, "\(table.file):\n\(problems.joined(separator: "\n"))")
    }

    struct Table {
        var file: String
        var header: [String]
        var rows: [[String]]

        func column(_ name: String) -> Int? {
            header.firstIndex { $0.lowercased() == name }
        }
    }

    /// The first Markdown table with a `key` column that lists `geofence.debounce_s`.
    static func findTable() throws -> Table? {
        var files = ["README.md"]
        let docs = root.appendingPathComponent("docs")
        if let names = try? FileManager.default.contentsOfDirectory(atPath: docs.path) {
            files += names.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        }
        for file in files {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            var table: [[String]] = []
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) + [Substring("")] {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("|") {
                    table.append(cells(trimmed))
                    continue
                }
                defer { table = [] }
                // Header, separator, rows.
                guard table.count > 2, let header = table.first, header.contains(where: { $0.lowercased() == "key" }) else { continue }
                let rows = Array(table.dropFirst(2))
                let found = Table(file: file, header: header, rows: rows)
                if let keyColumn = found.column("key"),
                    rows.contains(where: { $0.indices.contains(keyColumn) && firstCode($0[keyColumn]) == ConfigurationKey.debounce.name })
                {
                    return Table(file: file, header: header, rows: rows.map { $0 + Array(repeating: "", count: max(0, header.count - $0.count)) })
                }
            }
        }
        return nil
    }

    /// `| a | b |` -> `["a", "b"]`.
    static func cells(_ line: String) -> [String] {
        var inner = Substring(line.dropFirst())
        if inner.hasSuffix("|") { inner = inner.dropLast() }
        return inner.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The first `code span` of a cell.
    static func firstCode(_ cell: String) -> String? {
        cell.firstMatch(of: /`([^`]*)`/).map { String($0.1) }
    }

    /// A default as the table shows it: its first code span (`20`, `fleetfence-<host>`), or the
    /// word (`none`).
    static func value(_ cell: String) -> String {
        cell.hasPrefix("`") ? firstCode(cell) ?? cell : cell
    }
}
