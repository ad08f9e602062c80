import ArgumentParser
import FleetFenceService
import FleetFenceSettings
import Foundation
import MQTT

/// `fleetfence devices`: what an operator does to devices of a running service.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "Act on the devices of a running service.",
        subcommands: [Forget.self])

    /// `fleetfence devices forget ID...`: as a device silent for `geofence.forget_after_s` (docs/operations.md
    /// "Limits and failures"): its state leaves the journal, its retained topics (state, progress,
    /// Home Assistant) are cleared, and if it reports again it is first sight. Sent to the service
    /// over MQTT, so that every instance that holds the device forgets it.
    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget devices: their state, retained topics and Home Assistant entity go.",
            discussion: "Publishes <prefix>/devices/<id>/forget to the service's broker (QoS 1), taken from the same flags, FLEETFENCE_* variables and config file as `serve`.")

        @Argument(help: "Device ids, exactly as in their topics")
        var ids: [String]
        @Option(name: .customLong("config"), help: "YAML config file (default Config/fleetfence.yaml if present)")
        var configFile: String?
        @Option(help: "Broker URL [key broker.url]")
        var broker: String?
        @Option(help: "Root of the service's topics [key topics.prefix]")
        var prefix: String?

        func validate() throws {
            for id in ids where id.isEmpty || id.contains(where: { "/+#".contains($0) }) {
                throw ValidationError("\(id.isEmpty ? "an empty id" : id) cannot be one topic level")
            }
        }

        func run() async throws {
            var flags: [String: String] = [:]
            if let broker { flags[ConfigurationKey.brokerURL.name] = broker }
            if let prefix { flags[ConfigurationKey.prefix.name] = prefix }
            let configuration = try await ConfigurationLoader.forCommand(flags: flags, configFile: configFile)
            let brokers = try configuration.brokers()
            var options = MQTTOptions(
                url: brokers[0], username: configuration.username, password: try configuration.password(),
                caFile: configuration.caFile)
            options.failoverURLs = Array(brokers.dropFirst())
            let client = try MQTTClient(options: options)
            try await client.connect(timeout: .seconds(10))
            let layout = TopicLayout(prefix: configuration.prefix)
            for id in ids { client.publish(topic: layout.deviceForget(id), payload: [UInt8](), qos: 1) }
            guard await client.waitForPublishes(timeout: .seconds(10)) else {
                await client.disconnect()
                throw ValidationError("the broker did not acknowledge every request within 10 s")
            }
            await client.disconnect()
            print("asked the service to forget \(ids.count) device\(ids.count == 1 ? "" : "s")")
        }
    }
}
