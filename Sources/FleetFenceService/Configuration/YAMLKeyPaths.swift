import Yams

/// The dotted key paths of a YAML file's mappings: to warn about keys nobody reads, and to refuse
/// a section that is not a map.
///
/// swift-configuration's YAML snapshot does not expose its keys, so the file is read once more
/// with Yams (already there: swift-configuration reads YAML with it). A file Yams cannot read is
/// swift-configuration's error to report.
enum YAMLKeyPaths {
    static func keyPaths(in text: String) -> [String] {
        entries(in: text).map(\.path)
    }

    /// The key paths among `sections` whose value is not a mapping (`geofence: 5`), with what
    /// it is instead. An empty section (`geofence:`) is null: no keys, the defaults.
    static func nonMappings(in text: String, sections: (String) -> Bool) -> [(path: String, found: String)] {
        entries(in: text).compactMap { path, value in
            guard sections(path), value.mapping == nil else { return nil }
            if let scalar = value.scalar {
                return ["", "~", "null"].contains(scalar.string.lowercased()) ? nil : (path, "\"\(scalar.string)\"")
            }
            return (path, value.sequence != nil ? "a list" : "a value")
        }
    }

    /// Every key of the file's mappings, depth first, with its value.
    private static func entries(in text: String) -> [(path: String, value: Node)] {
        guard let root = try? Yams.compose(yaml: text) else { return [] }
        var entries: [(path: String, value: Node)] = []
        func visit(_ node: Node, prefix: String?) {
            guard let mapping = node.mapping else { return }
            for (key, value) in mapping {
                guard let name = key.string else { continue }
                let path = prefix.map { "\($0).\(name)" } ?? name
                entries.append((path, value))
                visit(value, prefix: path)
            }
        }
        visit(root, prefix: nil)
        return entries
    }
}
