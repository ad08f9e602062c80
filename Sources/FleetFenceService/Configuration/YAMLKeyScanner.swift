/// Lists the dotted key paths of a YAML file's block mappings, to warn about keys nobody reads.
///
/// swift-configuration's YAML snapshot does not expose its keys, so this is a deliberately small,
/// best-effort reading of the block style config files are written in: it skips comments, sequence
/// items, block scalars and the inside of flow collections. It only feeds warnings, never errors.
enum YAMLKeyScanner {
    static func keyPaths(in text: String) -> [String] {
        var paths: [String] = []
        var stack: [(indent: Int, key: String)] = []
        var blockScalarIndent: Int?  // inside `key: |` or `key: >` deeper than this indent

        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = Substring(rawLine)
            let indent = line.prefix { $0 == " " }.count
            let content = line.dropFirst(indent)
            if let scalarIndent = blockScalarIndent {
                if content.isEmpty || indent > scalarIndent { continue }
                blockScalarIndent = nil
            }
            if content.isEmpty || content.hasPrefix("#") || content.hasPrefix("-") || content.hasPrefix("---")
                || content.hasPrefix("...")
            {
                continue
            }
            guard let (key, value) = splitKey(content) else { continue }
            while let top = stack.last, top.indent >= indent { stack.removeLast() }
            stack.append((indent, key))
            paths.append(stack.map(\.key).joined(separator: "."))
            if value.hasPrefix("|") || value.hasPrefix(">") { blockScalarIndent = indent }
        }
        return paths
    }

    /// `key: value` -> (key, value); quoted keys lose their quotes. `nil` when the line is not a mapping entry.
    private static func splitKey(_ content: Substring) -> (String, Substring)? {
        var key: Substring
        var rest: Substring
        if let quote = content.first, quote == "\"" || quote == "'" {
            guard let close = content.dropFirst().firstIndex(of: quote) else { return nil }
            key = content[content.index(after: content.startIndex)..<close]
            rest = content[content.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
        } else {
            // A mapping colon is followed by a space or the end of the line (`mqtt://` is not one).
            guard let colon = content.indices.first(where: { index in
                content[index] == ":" && (content.index(after: index) == content.endIndex
                    || content[content.index(after: index)] == " ")
            }) else { return nil }
            key = content[..<colon]
            rest = content[colon...]
            while key.last == " " { key.removeLast() }
        }
        rest = rest.dropFirst().drop { $0 == " " }
        return key.isEmpty ? nil : (String(key), rest)
    }
}
