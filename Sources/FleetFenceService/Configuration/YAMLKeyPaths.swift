import Yams

/// The dotted key paths of a YAML file's mappings, to warn about keys nobody reads.
///
/// swift-configuration's YAML snapshot does not expose its keys, so the file is read once more
/// with Yams (already there: swift-configuration reads YAML with it). Only feeds warnings: a file
/// Yams cannot read is swift-configuration's error to report.
enum YAMLKeyPaths {
    static func keyPaths(in text: String) -> [String] {
        guard let root = try? Yams.compose(yaml: text) else { return [] }
        var paths: [String] = []
        collect(root, prefix: nil, into: &paths)
        return paths
    }

    private static func collect(_ node: Node, prefix: String?, into paths: inout [String]) {
        guard let mapping = node.mapping else { return }
        for (key, value) in mapping {
            guard let name = key.string else { continue }
            let path = prefix.map { "\($0).\(name)" } ?? name
            paths.append(path)
            collect(value, prefix: path, into: &paths)
        }
    }

    /// The key paths among `sections` whose value is not a mapping (`geofence: 5`), with what
    /// it is instead.
    static func nonMappings(in text: String, sections: (String) -> Bool) -> [(path: String, found: String)] {
        guard let root = try? Yams.compose(yaml: text) else { return [] }
        var found: [(String, String)] = []
        func visit(_ node: Node, prefix: String?) {
            guard let mapping = node.mapping else { return }
            for (key, value) in mapping {
                guard let name = key.string else { continue }
                let path = prefix.map { "\($0).\(name)" } ?? name
                // An empty section (`geofence:`) is null: no keys, the defaults.
                let isNull = value.scalar.map { ["", "~", "null"].contains($0.string.lowercased()) } ?? false
                if sections(path), value.mapping == nil, !isNull {
                    found.append((path, value.sequence != nil ? "a list" : value.scalar.map { "\"\($0.string)\"" } ?? "a value"))
                }
                visit(value, prefix: path)
            }
        }
        visit(root, prefix: nil)
        return found
    }
}
