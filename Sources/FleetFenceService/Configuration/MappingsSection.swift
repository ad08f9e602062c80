import FleetFenceCodecs
import Foundation
import Yams

/// `inputs.mappings` of the config file (docs/trackers.md "Connecting trackers"): a list of maps, which
/// swift-configuration's YAML provider refuses ("Unexpected non-scalar value in array"). Read here
/// with Yams, and taken out of the text the provider reads, so every other key keeps the one
/// precedence of flags, variables, file and defaults.
struct MappingsSection {
    static let key = "inputs.mappings"

    var mappings: [PositionMapping]
    /// The file's YAML without `inputs.mappings`; `nil` when it had none (the file is read as it is).
    var remainingYAML: String?

    /// A file Yams cannot read is left to the YAML provider to report.
    static func read(_ text: String, source: String) throws(ConfigurationError) -> MappingsSection {
        guard let root = try? Yams.compose(yaml: text), var top = root.mapping, var inputs = top["inputs"]?.mapping,
            let section = inputs["mappings"]
        else { return MappingsSection(mappings: [], remainingYAML: nil) }
        var mappings: [PositionMapping] = []
        switch section {
        case .scalar where section.null != nil:
            break
        case let .sequence(entries):
            for (index, entry) in entries.enumerated() {
                mappings.append(try mapping(entry, index: index, source: source))
            }
        default:
            throw ConfigurationError(key: key, source: source, message: "expected a list of mappings")
        }
        inputs["mappings"] = nil
        top["inputs"] = inputs.isEmpty ? nil : .mapping(inputs)
        let remaining: String
        do {
            remaining = top.isEmpty ? "" : try Yams.serialize(node: .mapping(top))
        } catch {
            throw ConfigurationError(key: key, source: source, message: "cannot set the mappings apart: \(error)")
        }
        return MappingsSection(mappings: mappings, remainingYAML: remaining)
    }

    private static func mapping(_ node: Node, index: Int, source: String) throws(ConfigurationError) -> PositionMapping {
        guard let pairs = node.mapping else {
            throw ConfigurationError(key: "\(key)[\(index)]", source: source, message: "expected a map of topic, id, lat, lon...")
        }
        var entry: [String: String] = [:]
        for (name, value) in pairs {
            guard let name = name.string, let text = value.scalar?.string else {
                throw ConfigurationError(
                    key: "\(key)[\(index)]", source: source, message: "every value must be a string (a topic, a JSON Pointer, a unit)")
            }
            entry[name] = text
        }
        do {
            return try PositionMapping(entry: entry)
        } catch {
            throw ConfigurationError(key: "\(key)[\(index)]", source: source, message: error.description)
        }
    }
}
