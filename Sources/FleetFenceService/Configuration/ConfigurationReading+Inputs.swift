import FleetFenceCodecs
import FleetFenceSettings

/// `inputs.*` (docs/trackers.md "Connecting trackers"): valid filters, and no topic that two inputs would
/// both read, so that a position is never decoded two ways.
extension ConfigurationReading {
    func inputs(positionTopics: [String], prefix: String) throws(ConfigurationError) -> ServiceConfiguration.Inputs {
        var traccar: [String] = []
        var layer: ConfigurationLayer = .builtInDefault
        if let list = try values.list(.traccarTopics) {
            layer = list.layer
            for filter in list.value.map({ $0.trimmingCharacters(in: .whitespaces) }) where !filter.isEmpty {
                if let problem = TopicFilterRules.filterProblem(filter) {
                    throw ConfigurationError(key: ConfigurationKey.traccarTopics.name, source: layer.label(for: .traccarTopics), message: problem)
                }
                if !traccar.contains(filter) { traccar.append(filter) }
            }
        }
        // Each input with its filters, named as an operator wrote them.
        var inputs: [(name: String, filters: [String])] = [
            (ConfigurationKey.positionTopics.name, positionTopics), (ConfigurationKey.traccarTopics.name, traccar),
        ]
        for (index, mapping) in mappings.enumerated() {
            // Checked here, as Traccar's are: an invalid filter was only refused by the broker's
            // client at subscribe time, a log line, and the input was never read.
            if let problem = TopicFilterRules.filterProblem(mapping.topic) {
                throw ConfigurationError(key: "inputs.mappings[\(index)]", source: nil, message: problem)
            }
            inputs.append(("inputs.mappings[\(index)]", [mapping.topic]))
        }
        // `#` or `<prefix>/#` would read the service's own alerts and errors back as positions,
        // each rejection answered with another message read back: a loop.
        for (name, filters) in inputs.dropFirst() {
            for filter in filters where TopicFilterRules.overlap(filter, "\(prefix)/#") {
                throw ConfigurationError(
                    key: name, source: nil,
                    message: "topic filter \(filter) overlaps \(prefix)/#, where the service writes (topics.prefix): "
                        + "it would read its own messages back")
            }
        }
        for (i, first) in inputs.enumerated() {
            for second in inputs[(i + 1)...] {
                for a in first.filters {
                    for b in second.filters where TopicFilterRules.overlap(a, b) {
                        throw ConfigurationError(
                            key: second.name, source: nil,
                            message: "topic filter \(b) overlaps \(a) of \(first.name): a topic matched by both "
                                + "would be read as two formats; give each input topics of its own")
                    }
                }
            }
        }
        return ServiceConfiguration.Inputs(traccarTopics: traccar, mappings: mappings)
    }
}
