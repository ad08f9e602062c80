import Foundation

/// One node's nats-server configuration: `Config/cluster/nats-node.conf.template` with its
/// `@NAME@`s filled in. The template is the one source of the cluster's settings (docs/several-instances.md
/// "Several instances"); `fleetfence cluster`, the tests and fleetbench all render it here.
struct NATSNodeConfiguration: Sendable {
    static let templatePath = "Config/cluster/nats-node.conf.template"

    var name: String
    var clientPort: Int
    var clusterPort: Int
    var mqttPort: Int
    /// Every node's cluster port, this one's included.
    var routePorts: [Int]
    var partitions: Int
    var storeDirectory: String

    func render(template: String) throws(LocalBrokerError) -> String {
        let values = [
            "NODE": name, "CLIENT_PORT": String(clientPort), "CLUSTER_PORT": String(clusterPort),
            "MQTT_PORT": String(mqttPort), "PARTITIONS": String(partitions), "STORE_DIR": storeDirectory,
            "ROUTES": routePorts.map { "nats-route://127.0.0.1:\($0)" }.joined(separator: ", "),
        ]
        var text = template
        for (key, value) in values {
            text = text.replacingOccurrences(of: "@\(key)@", with: value)
        }
        // Comments may show placeholders; a setting must not keep one.
        let unfilled = text.split(separator: "\n").filter { line in
            !line.trimmingCharacters(in: .whitespaces).hasPrefix("#") && line.contains(/@[A-Z_]+@/)
        }
        guard unfilled.isEmpty else {
            throw .setupFailed(reason: "the cluster template has settings nobody fills in: \(unfilled.joined(separator: "; "))")
        }
        return text
    }

    /// The template's text: `override`, else `Config/cluster/nats-node.conf.template` in the working
    /// directory, else in the source tree this code was built from.
    static func template(override: String? = nil, sourceFile: String = #filePath) throws(LocalBrokerError) -> String {
        // Sources/LocalBroker/NATSNodeConfiguration.swift -> the package root.
        let root = URL(fileURLWithPath: sourceFile).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidates = override.map { [$0] } ?? [templatePath, root.appendingPathComponent(templatePath).path]
        for path in candidates {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) { return text }
        }
        throw .setupFailed(reason: "the NATS node template is not at \(candidates.joined(separator: " or "))")
    }
}
