import FleetFenceCodecs
import Foundation
import Testing

@testable import FleetFenceService

/// `inputs.traccar_topics` and `inputs.mappings` (docs/trackers.md "Connecting trackers"): read like the
/// other keys (mappings from the file alone), and a topic two inputs would both read refused.
@Suite("Configuration: tracker inputs")
struct InputsConfigurationTests {
    /// Loads `yaml` as the `--config` file, with `flags`.
    private func load(_ yaml: String?, flags: [String: String] = [:]) async throws -> ServiceConfiguration {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fleetfence-inputs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var file: String?
        if let yaml {
            file = directory.appendingPathComponent("config.yaml").path
            try yaml.write(toFile: file!, atomically: true, encoding: .utf8)
        }
        return try await ConfigurationLoader.load(
            flags: flags, environment: [:], configFile: file, defaultConfigFile: directory.appendingPathComponent("absent.yaml").path)
    }

    static let mappingsYAML = """
        geofence:
          debounce_s: 7
        http:
          listen: ""
        integrations:
          homeassistant: yes
          homeassistant_prefix: "ha"
        broker:
          url: [mqtt://a:1883, mqtt://b:1884]
        inputs:
          traccar_topics: [traccar/positions]
          mappings:
            - topic: acme/+/gps
              id: topic:2
              lat: /fix/lat
              lon: /fix/lon
              ts: /fix/time
              ts_unit: ms
            - topic: gps/#
              id: /imei
              latlon: /pos
        """

    @Test func mappingsAreReadFromTheFileAndTheRestKeepsItsPrecedence() async throws {
        let configuration = try await load(Self.mappingsYAML)
        #expect(configuration.inputs.traccarTopics == ["traccar/positions"])
        #expect(configuration.inputs.mappings.map(\.topic) == ["acme/+/gps", "gps/#"])
        #expect(configuration.inputs.mappings.first?.id == .topicLevel(2))
        #expect(configuration.inputs.mappings.first?.tsUnit == .milliseconds)
        #expect(configuration.inputs.mappings.last?.coordinates == .combined(JSONPointer("/pos")!))
        #expect(configuration.geofence.debounceSeconds == 7, "the rest of the file is read as before")
        #expect(configuration.http.listen == nil, "an empty quoted string stays one")
        #expect(configuration.integrations.homeAssistant && configuration.integrations.homeAssistantPrefix == "ha")
        #expect(configuration.brokerURLs == ["mqtt://a:1883", "mqtt://b:1884"])
        #expect(configuration.warnings.isEmpty, "\(configuration.warnings)")
        let flagged = try await load(Self.mappingsYAML, flags: ["geofence.debounce_s": "3", "inputs.traccar_topics": "tr/a,tr/b"])
        #expect(flagged.geofence.debounceSeconds == 3)
        #expect(flagged.inputs.traccarTopics == ["tr/a", "tr/b"])
        #expect(flagged.inputs.mappings.count == 2)
    }

    @Test func aFileWithOnlyMappings() async throws {
        let configuration = try await load("inputs:\n  mappings:\n    - {topic: a/+, id: topic:2, lat: /y, lon: /x}\n")
        #expect(configuration.inputs.mappings.count == 1)
        #expect(configuration.positionTopics == ["fleet/+/position"])
    }

    @Test("a bad mapping names its entry and why", arguments: [
        ("inputs:\n  mappings:\n    - {topic: a/+, lat: /y, lon: /x}\n", "inputs.mappings[0]", "id is required"),
        ("inputs:\n  mappings:\n    - {topic: a/+, id: /i, lat: /y, lon: /x}\n    - {topic: b/+, id: /i, lat: y, lon: /x}\n",
         "inputs.mappings[1]", "lat y is not a JSON Pointer"),
        ("inputs:\n  mappings: yes\n", "inputs.mappings", "expected a list of mappings"),
        ("inputs:\n  mappings:\n    - {topic: a/+, id: /i, lat: [1], lon: /x}\n", "inputs.mappings[0]", "every value must be a string"),
        ("inputs:\n  mappings:\n    - {topic: a/+, id: /i, lat: /y, lon: /x}\n    - {topic: \"a/#/b\", id: /i, lat: /y, lon: /x}\n",
         "inputs.mappings[1]", "in a/#/b, # must be the whole last topic level"),
        ("inputs:\n  mappings:\n    - {topic: \"c+/d\", id: topic:1, lat: /y, lon: /x}\n", "inputs.mappings[0]", "in c+/d, + must fill"),
    ])
    func badMappings(yaml: String, key: String, message: String) async throws {
        let error = await #expect(throws: ConfigurationError.self) { try await self.load(yaml) }
        #expect(error?.key == key)
        #expect(error?.message.hasPrefix(message) == true, "\(String(describing: error))")
    }

    @Test("a topic two inputs would read is refused, naming both", arguments: [
        (["inputs.traccar_topics": "fleet/+/position"], "fleet/+/position", "topics.positions"),
        (["inputs.traccar_topics": "fleet/truck-1/position"], "fleet/truck-1/position", "topics.positions"),
        (["inputs.traccar_topics": "fleet/+/+"], "fleet/+/+", "topics.positions"),
        (["inputs.traccar_topics": "fleet/#"], "fleet/#", "topics.positions"),
        (["inputs.traccar_topics": "acme/van/gps"], "acme/+/gps", "inputs.traccar_topics"),
    ])
    func overlaps(flags: [String: String], filter: String, other: String) async throws {
        let yaml = "inputs:\n  mappings:\n    - {topic: acme/+/gps, id: topic:2, lat: /y, lon: /x}\n"
        let error = await #expect(throws: ConfigurationError.self) { try await self.load(yaml, flags: flags) }
        #expect(error?.message.contains("overlaps") == true, "\(String(describing: error))")
        #expect(error?.message.contains(filter) == true && error?.message.contains(other) == true, "\(String(describing: error))")
    }

    @Test("an input that would read the service's own topics is refused", arguments: ["#", "fleetfence/#", "+/alerts/#"])
    func ownTopics(filter: String) async throws {
        let error = await #expect(throws: ConfigurationError.self) {
            try await self.load(nil, flags: ["inputs.traccar_topics": filter, "topics.positions": "trucks/+/pos"])
        }
        #expect(error?.message.contains("read its own messages back") == true, "\(String(describing: error))")
    }

    @Test func disjointInputsAreFine() async throws {
        let configuration = try await load(nil, flags: ["inputs.traccar_topics": "traccar/#, fleet/+/positions"])
        #expect(configuration.inputs.traccarTopics == ["traccar/#", "fleet/+/positions"])
        await #expect(throws: ConfigurationError.self) { try await self.load(nil, flags: ["inputs.traccar_topics": "a/b#"]) }
    }

    @Test func filterOverlapIsExact() {
        let overlapping = [
            ("a/b", "a/b"), ("a/+", "a/b"), ("+/+", "a/b"), ("#", "a/b/c"), ("a/#", "a"), ("a/#", "+/b/c"), ("+/b", "a/+"),
        ]
        for (x, y) in overlapping {
            #expect(TopicFilterRules.overlap(x, y) && TopicFilterRules.overlap(y, x), "\(x) \(y)")
        }
        let disjoint = [("a/b", "a/c"), ("a/+", "a"), ("a/+", "a/b/c"), ("a/b/#", "a/c/#"), ("+/b", "+/c"), ("a", "b/#")]
        for (x, y) in disjoint {
            #expect(!TopicFilterRules.overlap(x, y) && !TopicFilterRules.overlap(y, x), "\(x) \(y)")
        }
    }
}
